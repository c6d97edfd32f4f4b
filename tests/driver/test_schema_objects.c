/*
 * Secondary indexes, materialized views, functions and aggregates in the schema metadata of a
 * session. The embedded engine has none of them: its system_schema.indexes, views, functions
 * and aggregates are empty, so every lookup finds nothing and every iterator is empty, while
 * the rest of the snapshot is read as before (the session fetches these tables with the
 * others). Run remote too, against `cassette serve`, the same holds. Rows of these tables, as
 * a real Cassandra returns them, are tested in tests/cql/test_driver_schema_objects.c.
 */
#include "driver_test.h"

static int count_items(CassIterator *it)
{
    ASSERT(it);
    int n = 0;
    while (cass_iterator_next(it))
        n++;
    cass_iterator_free(it);
    return n;
}

TEST(schema_without_indexes_views_functions_or_aggregates_has_empty_lists)
{
    conn a;
    MEMORY_CONNECT(&a);
    CassSession *s = a.session;
    RUN(s, KS_CQL);
    RUN(s, "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))");
    const CassSchemaMeta *m = cass_session_get_schema_meta(s);
    ASSERT(m);
    const CassKeyspaceMeta *km = cass_schema_meta_keyspace_by_name(m, "ks");
    const CassTableMeta *t = cass_keyspace_meta_table_by_name(km, "t");
    ASSERT(t);
    ASSERT_EQ(cass_table_meta_column_count(t), 3);
    ASSERT_EQ(count_items(cass_iterator_functions_from_keyspace_meta(km)), 0);
    ASSERT_EQ(count_items(cass_iterator_aggregates_from_keyspace_meta(km)), 0);
    ASSERT_EQ(count_items(cass_iterator_materialized_views_from_keyspace_meta(km)), 0);
    ASSERT_EQ(count_items(cass_iterator_indexes_from_table_meta(t)), 0);
    ASSERT_EQ(count_items(cass_iterator_materialized_views_from_table_meta(t)), 0);
    ASSERT_EQ(cass_table_meta_index_count(t), 0);
    ASSERT_EQ(cass_table_meta_materialized_view_count(t), 0);
    ASSERT(cass_table_meta_index_by_name(t, "t_v_idx") == NULL);
    ASSERT(cass_keyspace_meta_materialized_view_by_name(km, "t") == NULL);
    ASSERT(cass_keyspace_meta_function_by_name(km, "f", "int") == NULL);
    ASSERT(cass_keyspace_meta_aggregate_by_name(km, "a", "int") == NULL);
    /* the system keyspaces have none either */
    const CassKeyspaceMeta *sys = cass_schema_meta_keyspace_by_name(m, "system_schema");
    ASSERT(sys);
    ASSERT_EQ(count_items(cass_iterator_functions_from_keyspace_meta(sys)), 0);
    ASSERT_EQ(count_items(cass_iterator_materialized_views_from_keyspace_meta(sys)), 0);
    cass_schema_meta_free(m);
    conn_close(&a);
}
