"""The DataStax Python driver (Debian's python3-cassandra) against cassette serve.

Each test names the rule it checks; the expectations are Cassandra's behaviour
as the driver sees it (its exception classes, its metadata, its paging).
"""
import datetime
import decimal
import ipaddress
import socket
import struct
import uuid

import pytest
from cassandra import InvalidRequest, ProtocolVersion
from cassandra.cluster import Cluster
from cassandra.query import BatchStatement, SimpleStatement
from cassandra.util import Date, Duration, Time

from conftest import start_server, stop_server


def connect(server, version, **kw):
    host, port = server
    cluster = Cluster([host], port=port, protocol_version=version, connect_timeout=10,
                      control_connection_timeout=10, **kw)
    return cluster, cluster.connect()


@pytest.fixture(scope="module")
def ks(server):
    cluster, session = connect(server, 4)
    session.execute("CREATE KEYSPACE pyks WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    cluster.shutdown()
    return "pyks"


@pytest.mark.parametrize("version", [3, 4, 5])
def test_connects_with_schema_metadata_on_each_protocol_version(server, ks, version):
    cluster, session = connect(server, version)
    try:
        assert cluster.protocol_version == version
        assert ks in cluster.metadata.keyspaces
        assert "system" in cluster.metadata.keyspaces
        # the virtual keyspace 4.0+ drivers read, and the tables tools probe
        virtual = cluster.metadata.keyspaces["system_virtual_schema"]
        assert virtual.virtual and set(virtual.tables) == {"keyspaces", "tables", "columns"}
        assert "repair_history" in cluster.metadata.keyspaces["system_distributed"].tables
        assert session.execute("SELECT * FROM system.size_estimates").one() is None
        row = session.execute("SELECT release_version FROM system.local").one()
        assert row.release_version
    finally:
        cluster.shutdown()


@pytest.mark.parametrize("version", [3, 4, 5])
def test_prepared_and_simple_statements_round_trip(server, ks, version):
    cluster, session = connect(server, version)
    try:
        session.set_keyspace(ks)
        table = "rt%d" % version
        session.execute("CREATE TABLE %s (k int, c int, v text, PRIMARY KEY (k, c))" % table)
        insert = session.prepare("INSERT INTO %s (k, c, v) VALUES (?, ?, ?)" % table)
        for i in range(20):
            session.execute(insert, (1, i, "v%d" % i))
        session.execute("INSERT INTO %s (k, c, v) VALUES (%%s, %%s, %%s)" % table, (2, 0, "x"))
        rows = list(session.execute("SELECT c, v FROM %s WHERE k = 1" % table))
        assert [(r.c, r.v) for r in rows] == [(i, "v%d" % i) for i in range(20)]
        select = session.prepare("SELECT v FROM %s WHERE k = ? AND c = ?" % table)
        assert session.execute(select, (2, 0)).one().v == "x"
        assert session.execute(select, (3, 0)).one() is None
    finally:
        cluster.shutdown()


@pytest.mark.parametrize("version,compression",
                         [(3, "lz4"), (3, "snappy"), (4, "lz4"), (4, "snappy"), (5, "lz4")])
def test_compressed_frames_and_segments_carry_large_results(server, ks, version, compression):
    cluster, session = connect(server, version, compression=compression)
    try:
        session.set_keyspace(ks)
        table = "z%d%s" % (version, compression)
        session.execute("CREATE TABLE %s (k int, c int, v text, PRIMARY KEY (k, c))" % table)
        insert = session.prepare("INSERT INTO %s (k, c, v) VALUES (?, ?, ?)" % table)
        text = "compressible text " * 1000  # 18 KB a row: v5 results span segments
        for i in range(10):
            session.execute(insert, (1, i, text + str(i)))
        rows = list(session.execute("SELECT c, v FROM %s WHERE k = 1" % table))
        assert [r.v for r in rows] == [text + str(i) for i in range(10)]
        # the driver really compresses (its connection's compressor is set only after READY
        # accepted the STARTUP's COMPRESSION), and v5 really runs on segments
        conn = cluster.control_connection._connection
        assert conn.compressor is not None
        assert conn._is_checksumming_enabled == (version >= 5)
    finally:
        cluster.shutdown()


def test_every_cql_type_round_trips_through_a_prepared_statement(server, ks):
    cluster, session = connect(server, 4)
    try:
        session.set_keyspace(ks)
        session.execute("CREATE TYPE addr (street text, zip int)")
        session.execute(
            "CREATE TABLE types (k int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean,"
            " d decimal, db double, f float, i inet, n int, s smallint, t text, ts timestamp,"
            " tu timeuuid, ti tinyint, u uuid, vi varint, da date, tm time, du duration,"
            " l list<int>, st set<text>, m map<text, int>, tp tuple<int, text>,"
            " ad frozen<addr>)")
        cluster.refresh_schema_metadata()
        values = dict(
            a="ascii", b=2 ** 40, bl=b"\x00\x01", bo=True, d=decimal.Decimal("1.25"), db=0.5,
            f=0.25, i="127.0.0.1", n=-7, s=300, t="text \u00e9", ts=datetime.datetime(
                2024, 1, 2, 3, 4, 5, 678000), tu=uuid.UUID("e7f0b4a2-8b4b-11ee-b9d1-0242ac120002"),
            ti=-5, u=uuid.UUID("12345678-1234-5678-1234-567812345678"), vi=10 ** 30,
            da=Date(datetime.date(2024, 2, 29)), tm=Time(3723000000123), du=Duration(1, 2, 3),
            l=[1, 2, 3], st={"a", "b"}, m={"x": 1}, tp=(1, "one"))
        cols = list(values)
        insert = session.prepare("INSERT INTO types (k, %s) VALUES (?, %s)" %
                                 (", ".join(cols), ", ".join("?" * len(cols))))
        session.execute(insert, [1] + [values[c] for c in cols])
        row = session.execute("SELECT * FROM types WHERE k = 1").one()
        for c in cols:
            got = getattr(row, c)
            want = values[c]
            if c == "st":
                got = set(got)
            if c == "ts":
                got = got.replace(tzinfo=None)
            assert got == want, c
    finally:
        cluster.shutdown()


def test_paging_through_ten_thousand_rows(server, ks):
    cluster, session = connect(server, 4)
    try:
        session.set_keyspace(ks)
        session.execute("CREATE TABLE paged (k int, c int, PRIMARY KEY (k, c))")
        insert = session.prepare("INSERT INTO paged (k, c) VALUES (0, ?)")
        for i in range(10000):
            session.execute_async(insert, (i,))
        session.execute("SELECT * FROM paged LIMIT 1")  # a barrier on the connection
        rs = session.execute(SimpleStatement("SELECT c FROM paged WHERE k = 0", fetch_size=333))
        first = rs.current_rows
        assert len(first) == 333 and rs.has_more_pages
        state = rs.paging_state
        again = session.execute(SimpleStatement("SELECT c FROM paged WHERE k = 0",
                                                fetch_size=333), paging_state=state)
        assert again.current_rows[0].c == 333
        assert [r.c for r in rs] == list(range(10000))
    finally:
        cluster.shutdown()


def test_lwt_results_carry_applied(server, ks):
    cluster, session = connect(server, 4)
    try:
        session.set_keyspace(ks)
        session.execute("CREATE TABLE users (login text PRIMARY KEY, name text)")
        ins = session.prepare("INSERT INTO users (login, name) VALUES (?, ?) IF NOT EXISTS")
        assert session.execute(ins, ("ann", "Ann")).was_applied
        again = session.execute(ins, ("ann", "Other"))
        assert not again.was_applied
        assert again.one().name == "Ann"
    finally:
        cluster.shutdown()


def test_batches_apply_every_statement(server, ks):
    cluster, session = connect(server, 4)
    try:
        session.set_keyspace(ks)
        session.execute("CREATE TABLE b (k int, c int, PRIMARY KEY (k, c))")
        ins = session.prepare("INSERT INTO b (k, c) VALUES (?, ?)")
        batch = BatchStatement()
        for i in range(5):
            batch.add(ins, (1, i))
        batch.add("INSERT INTO b (k, c) VALUES (1, 99)")
        session.execute(batch)
        assert [r.c for r in session.execute("SELECT c FROM b WHERE k = 1")] == [0, 1, 2, 3, 4, 99]
    finally:
        cluster.shutdown()


def test_errors_surface_as_the_drivers_exceptions_with_cassandras_message(server, ks):
    cluster, session = connect(server, 4)
    try:
        session.set_keyspace(ks)
        with pytest.raises(InvalidRequest) as e:
            session.execute("SELECT * FROM no_such_table")
        assert 'message="table no_such_table does not exist"' in str(e.value)
        from cassandra.protocol import SyntaxException
        with pytest.raises(SyntaxException):
            session.execute("SELEKT 1")
        from cassandra import AlreadyExists
        with pytest.raises(AlreadyExists):
            session.execute("CREATE KEYSPACE %s WITH replication = "
                            "{'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
    finally:
        cluster.shutdown()


def test_schema_changes_reach_the_drivers_metadata(server, ks):
    cluster, session = connect(server, 4)
    try:
        session.execute("CREATE TABLE %s.evented (k int PRIMARY KEY)" % ks)
        assert "evented" in cluster.metadata.keyspaces[ks].tables
        session.execute("DROP TABLE %s.evented" % ks)
        assert "evented" not in cluster.metadata.keyspaces[ks].tables
    finally:
        cluster.shutdown()


def raw_exchange(server, frame):
    host, port = server
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(frame)
        header = b""
        while len(header) < 9:
            chunk = s.recv(9 - len(header))
            if not chunk:
                return None, None
            header += chunk
        length = struct.unpack(">I", header[5:9])[0]
        body = b""
        while len(body) < length:
            body += s.recv(length - len(body))
        return header, body


def test_an_unsupported_version_gets_a_protocol_error_naming_the_range(server):
    startup = struct.pack(">H", 1) + struct.pack(">H", 11) + b"CQL_VERSION" + \
        struct.pack(">H", 5) + b"3.0.0"
    header, body = raw_exchange(server, bytes([0x02, 0, 0, 1, 0x01]) +
                                struct.pack(">I", len(startup)) + startup)
    assert header[0] == 0x82  # answered in the version asked for
    assert header[4] == 0x00  # ERROR
    code = struct.unpack(">i", body[:4])[0]
    assert code == 0x000A
    msg = body[6:].decode()
    assert msg == ("Invalid or unsupported protocol version (2); "
                   "supported versions are (3/v3, 4/v4, 5/v5)")


def test_garbage_gets_a_protocol_error_and_others_are_still_served(server, ks):
    header, body = raw_exchange(server, bytes([0x04, 0, 0, 1, 0x07]) + struct.pack(">I", 3) +
                                b"\x00\x00\x00")
    assert header is not None and header[4] == 0x00
    assert struct.unpack(">i", body[:4])[0] == 0x000A
    cluster, session = connect(server, 4)
    try:
        assert session.execute("SELECT release_version FROM system.local").one()
    finally:
        cluster.shutdown()


def test_sigterm_stops_the_server_cleanly_with_acknowledged_writes_kept(tmp_path):
    import os
    import subprocess
    binary = os.environ.get("CASSETTE", "build/release/cassette")
    db = str(tmp_path / "db")
    proc, host, port = start_server_on(binary, db)
    cluster = Cluster([host], port=port, protocol_version=4, connect_timeout=10)
    session = cluster.connect()
    session.execute("CREATE KEYSPACE k WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    session.execute("CREATE TABLE k.t (k int PRIMARY KEY)")
    ins = session.prepare("INSERT INTO k.t (k) VALUES (?)")
    for i in range(100):
        session.execute(ins, (i,))
    cluster.shutdown()
    assert stop_server(proc) == 0
    out = subprocess.run([binary, db, "-e", "SELECT count(*) FROM k.t;"], capture_output=True,
                         text=True, check=True).stdout
    assert "100" in out


def start_server_on(binary, db):
    import os
    import re
    import subprocess
    proc = subprocess.Popen([binary, "serve", db, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
    line = proc.stdout.readline()
    m = re.search(r"listening on ([0-9.]+):([0-9]+)", line)
    assert m, line
    return proc, m.group(1), int(m.group(2))


def test_server_warnings_reach_the_driver_from_v4_on(server, ks):
    cluster, session = connect(server, 4)
    try:
        session.set_keyspace(ks)
        session.execute("CREATE TABLE warned (k int PRIMARY KEY, v int)")
        rs = session.execute("SELECT count(*) FROM warned")
        assert rs.response_future.warnings == ["Aggregation query used without partition key"]
    finally:
        cluster.shutdown()


def test_an_unknown_prepared_id_answers_unprepared_with_that_id(server):
    import os
    host, port = server
    startup = struct.pack(">H", 1) + struct.pack(">H", 11) + b"CQL_VERSION" + \
        struct.pack(">H", 5) + b"3.0.0"
    unknown = os.urandom(16)
    execute = struct.pack(">H", 16) + unknown + struct.pack(">HB", 1, 0)
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(bytes([4, 0, 0, 0, 0x01]) + struct.pack(">I", len(startup)) + startup)
        s.recv(9)
        s.sendall(bytes([4, 0, 0, 9, 0x0A]) + struct.pack(">I", len(execute)) + execute)
        header = s.recv(9)
        length = struct.unpack(">I", header[5:9])[0]
        body = b""
        while len(body) < length:
            body += s.recv(length - len(body))
    assert header[4] == 0x00 and struct.unpack(">h", header[2:4])[0] == 9
    assert struct.unpack(">i", body[:4])[0] == 0x2500
    n = struct.unpack(">H", body[4:6])[0]
    assert struct.unpack(">H", body[6 + n:8 + n])[0] == 16
    assert body[8 + n:24 + n] == unknown


def test_token_agrees_with_the_drivers_token_map(server, ks):
    cluster, session = connect(server, 4)
    try:
        session.set_keyspace(ks)
        session.execute("CREATE TABLE tok (k text PRIMARY KEY)")
        ins = session.prepare("INSERT INTO tok (k) VALUES (?)")
        tm = cluster.metadata.token_map
        assert tm is not None and len(tm.ring) > 0
        for i in range(50):
            key = "user-%d" % i
            session.execute(ins, (key,))
            got = session.execute("SELECT token(k) FROM tok WHERE k = %s", (key,)).one()[0]
            assert got == tm.token_class.from_key(key.encode()).value
            # and the driver routes the key to the one node it knows
            replicas = tm.get_replicas(ks, tm.token_class.from_key(key.encode()))
            assert len(replicas) == 1
    finally:
        cluster.shutdown()


@pytest.mark.parametrize("version", [3, 4, 5])
def test_traced_requests_give_the_driver_a_trace_it_reads(server, ks, version):
    # Frame flag 0x02: the response carries the tracing id before its body ([PV4] 2.2), and
    # system_traces holds the session and its events (QueryTrace.populate reads both).
    cluster, session = connect(server, version)
    try:
        session.set_keyspace(ks)
        session.execute("CREATE TABLE IF NOT EXISTS traced (k int PRIMARY KEY, v text)")
        rs = session.execute("INSERT INTO traced (k, v) VALUES (1, 'one')", trace=True)
        trace = rs.get_query_trace(max_wait_sec=5)
        assert trace.request_type == "Execute CQL3 query"
        assert trace.duration.total_seconds() > 0
        assert trace.parameters["query"] == "INSERT INTO traced (k, v) VALUES (1, 'one')"
        assert "consistency_level" in trace.parameters
        assert str(trace.coordinator) == "127.0.0.1"
        activities = [e.description for e in trace.events]
        assert activities[0].startswith("Parsing INSERT INTO traced")
        assert "Adding to traced memtable" in activities

        sel = session.prepare("SELECT v FROM traced WHERE k = ?")
        rs = session.execute(sel, (1,), trace=True)
        assert rs.one().v == "one"
        trace = rs.get_query_trace(max_wait_sec=5)
        assert trace.request_type == "Execute CQL3 prepared query"
        assert trace.parameters["bound_var_0_k"] == "1"
        activities = [e.description for e in trace.events]
        assert "Executing single-partition query on traced" in activities
        assert "Read 1 live rows and 0 tombstone cells" in activities
        assert all(e.source_elapsed is not None for e in trace.events)

        batch = BatchStatement()
        batch.add("INSERT INTO traced (k, v) VALUES (2, 'two')")
        rs = session.execute(batch, trace=True)
        assert rs.get_query_trace(max_wait_sec=5).request_type == \
            "Execute batch of CQL3 queries"

        # untraced: no id in the response
        rs = session.execute("SELECT v FROM traced WHERE k = 1")
        assert not rs.response_future._query_traces
    finally:
        cluster.shutdown()


@pytest.mark.parametrize("version", [3, 4, 5])
def test_a_prepared_select_star_sees_a_column_added_by_alter_table(server, ks, version):
    # Cassandra drops the prepared statements of a table whose columns change
    # (QueryProcessor's schema listener): the next EXECUTE answers UNPREPARED,
    # the driver prepares again and reads the rows with the new columns.
    cluster, session = connect(server, version)
    try:
        session.set_keyspace(ks)
        table = "alt%d" % version
        session.execute("CREATE TABLE %s (k int PRIMARY KEY, v text)" % table)
        session.execute("INSERT INTO %s (k, v) VALUES (1, 'a')" % table)
        select = session.prepare("SELECT * FROM %s WHERE k = ?" % table)
        assert list(session.execute(select, (1,)).one()._fields) == ["k", "v"]
        session.execute("ALTER TABLE %s ADD w int" % table)
        session.execute("UPDATE %s SET w = 7 WHERE k = 1" % table)
        for _ in range(2):
            row = session.execute(select, (1,)).one()
            assert list(row._fields) == ["k", "v", "w"] and row.w == 7
    finally:
        cluster.shutdown()
