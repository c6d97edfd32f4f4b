/*
 * Private to the catalog (catalog.c, catalog_ddl.c): what schema changes
 * use of the record layer.
 *
 * catalog.c owns the records of meta -- their keys, their value layouts and
 * the schema version -- and catalog_ddl.c writes them only through these
 * helpers, so a record is always encoded the way eng_schema_load decodes it.
 * Every helper reports failures in err with the catalog's codes: ENG_E_NOMEM
 * (also for a buffer whose oom flag is set), ENG_E_IO, ENG_E_CORRUPT, or
 * ENG_MAP_FULL.
 */
#ifndef ENG_CATALOG_INT_H
#define ENG_CATALOG_INT_H

#include "engine/store/catalog.h"

/* ENG_E_NOMEM, "out of memory updating the schema". */
int eng_catalog_nomem(eng_err *err);

/* ---- keys and LMDB access ---- */

/* Resets b to the key of a record: tag ('K', 'T' or 'Y') 0 ks, then 0 name unless name is NULL. */
void eng_catalog_make_key(eng_buf *b, char tag, const char *ks, const char *name);
/* Writes one record in txn, sealing val (an eng_catalog_encode_* result) under key first. */
int eng_catalog_meta_put(MDB_txn *txn, MDB_dbi meta, const eng_buf *key, eng_buf *val,
                         eng_err *err);
/* Deletes one record in txn; a record that is not there is no error. */
int eng_catalog_meta_del(MDB_txn *txn, MDB_dbi meta, const eng_buf *key, eng_err *err);
/* Stores the schema version plus one. */
int eng_catalog_bump_version(MDB_txn *txn, MDB_dbi meta, eng_err *err);
/* 1 if this thread bumped the schema version in the write transaction id (of any database:
   a false yes only costs a catalog read). */
int eng_catalog_bumped_in(uint64_t id);

/* ---- record values (layouts: catalog.c), appended to b ---- */

void eng_catalog_encode_keyspace(eng_buf *b, const eng_option *repl, uint32_t n, int durable);
void eng_catalog_encode_udt(eng_buf *b, const eng_type *udt);
void eng_catalog_encode_table(eng_buf *b, const eng_table *t);

#endif
