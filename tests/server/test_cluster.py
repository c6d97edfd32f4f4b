"""Several `cassette serve` processes on one database directory: a cluster.

Each server registers itself as a node of the directory (docs/server.md,
"A cluster on one directory"); the Python driver must discover it as it
discovers a Cassandra cluster: hosts from system.peers_v2 with their data
centers, racks, host ids and tokens; a token map that routes; DOWN, UP,
NEW_NODE and REMOVED_NODE events as nodes die, restart, join and leave.
Every port is a free one the server picked (--port 0); a restarted node
asks for the port it had.
"""
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time

import pytest
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import RoundRobinPolicy, TokenAwarePolicy

from conftest import stop_server


def start_node(db, port=0, *args):
    binary = os.environ.get("CASSETTE", "build/release/cassette")
    env = dict(os.environ, CASSETTE_DURABILITY="none")
    proc = subprocess.Popen([binary, "serve", db, "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    line = proc.stdout.readline()
    m = re.search(r"listening on ([0-9.]+):([0-9]+)", line)
    if not m:
        proc.kill()
        raise RuntimeError("cassette serve did not start: " + line + proc.stdout.read())
    return proc, int(m.group(2))


def start_node_again(db, port, *args):
    """Restarts a node on the port it had (another process may have taken it meanwhile:
    unlikely on a loopback address, retried a few times)."""
    for _ in range(20):
        try:
            return start_node(db, port, *args)
        except RuntimeError as e:
            if "address already in use" not in str(e):
                raise
            time.sleep(0.25)
    raise RuntimeError("port %d stays taken" % port)


def kill(proc):
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=20)


def wait_for(cond, timeout=20, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def round_robin_cluster(port, policy=None):
    profile = ExecutionProfile(load_balancing_policy=policy or RoundRobinPolicy())
    return Cluster(["127.0.0.1"], port=port, protocol_version=4, connect_timeout=10,
                   execution_profiles={EXEC_PROFILE_DEFAULT: profile})


@pytest.fixture(scope="module")
def ring():
    db = tempfile.mkdtemp(prefix="cassette-cluster-")
    a, port_a = start_node(db)
    b, port_b = start_node(db, 0, "--dc", "dc2", "--rack", "rack7")
    nodes = {"db": db, "a": a, "port_a": port_a, "b": b, "port_b": port_b}
    yield nodes
    for key in ("a", "b"):
        if nodes[key].poll() is None:
            assert stop_server(nodes[key]) == 0
    shutil.rmtree(db, ignore_errors=True)


def wait_pools(session, hosts):
    """A host is marked up before its pool exists: connect() returns with the first pool."""
    wait_for(lambda: set(hosts) <= set(session.get_pool_state()), what="pools to every host")


def local_of(session, host):
    return session.execute("SELECT * FROM system.local", host=host).one()


def test_driver_discovers_both_nodes_with_their_location_and_tokens(ring):
    cluster = round_robin_cluster(ring["port_a"])
    session = cluster.connect()
    try:
        hosts = {h.endpoint.port: h for h in cluster.metadata.all_hosts()}
        assert set(hosts) == {ring["port_a"], ring["port_b"]}
        a, b = hosts[ring["port_a"]], hosts[ring["port_b"]]
        assert (a.datacenter, a.rack) == ("datacenter1", "rack1")
        assert (b.datacenter, b.rack) == ("dc2", "rack7")
        assert a.host_id != b.host_id
        wait_pools(session, (a, b))
        # each node describes itself in system.local as the others list it in peers_v2
        for h, port in ((a, ring["port_a"]), (b, ring["port_b"])):
            row = local_of(session, h)
            assert row.host_id == h.host_id
            assert row.rpc_address == "127.0.0.1" and row.rpc_port == port
            assert row.data_center == h.datacenter and row.rack == h.rack
            assert len(row.tokens) == 16
        # the token map holds both nodes' 16 tokens
        tm = cluster.metadata.token_map
        owners = list(tm.token_to_host_owner.values())
        assert len(tm.ring) == 32
        assert owners.count(a) == 16 and owners.count(b) == 16
        # the nodes agree on the schema version (one catalog)
        versions = {local_of(session, h).schema_version for h in (a, b)}
        assert len(versions) == 1
    finally:
        cluster.shutdown()


def test_peers_tables_list_the_other_node(ring):
    cluster = round_robin_cluster(ring["port_b"])
    session = cluster.connect()
    try:
        b = [h for h in cluster.metadata.all_hosts() if h.endpoint.port == ring["port_b"]][0]
        wait_pools(session, cluster.metadata.all_hosts())
        local = local_of(session, b)
        assert local.data_center == "dc2" and local.rpc_port == ring["port_b"]
        peers = list(session.execute("SELECT * FROM system.peers_v2", host=b))
        assert len(peers) == 1
        p = peers[0]
        assert p.native_address == "127.0.0.1" and p.native_port == ring["port_a"]
        assert p.peer == "127.0.0.1" and p.data_center == "datacenter1" and p.rack == "rack1"
        assert p.release_version == "4.1.5" and len(p.tokens) == 16
        assert p.schema_version == local.schema_version
        # system.peers is keyed by address alone: a node on the local node's address has no
        # row there (drivers read peers_v2)
        assert list(session.execute("SELECT * FROM system.peers", host=b)) == []
    finally:
        cluster.shutdown()


def test_token_map_routes_to_the_replica(ring):
    cluster = round_robin_cluster(ring["port_a"], TokenAwarePolicy(RoundRobinPolicy()))
    session = cluster.connect()
    try:
        session.execute("CREATE KEYSPACE IF NOT EXISTS routed WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 1}")
        session.execute("CREATE TABLE IF NOT EXISTS routed.kv (k text PRIMARY KEY, v int)")
        cluster.refresh_schema_metadata()
        hosts = set(cluster.metadata.all_hosts())
        wait_pools(session, hosts)
        insert = session.prepare("INSERT INTO routed.kv (k, v) VALUES (?, ?)")
        tm = cluster.metadata.token_map
        seen = set()
        for i in range(40):
            key = "key%d" % i
            replicas = tm.get_replicas("routed", tm.token_class.from_key(key.encode()))
            assert len(replicas) == 1 and replicas[0] in hosts
            future = session.execute_async(insert, (key, i))
            future.result()
            assert future.coordinator_host == replicas[0]  # token-aware: the replica
            seen.add(replicas[0])
        assert seen == hosts  # 40 keys over 32 random tokens: both nodes own some
        # one database: what one node wrote, the other reads
        for h in hosts:
            assert session.execute("SELECT count(*) FROM routed.kv", host=h).one()[0] == 40
    finally:
        cluster.shutdown()


# ---- events on a raw connection (native_protocol_v4.spec 4.2.6) ----

def frame(stream, opcode, body):
    return bytes([4, 0]) + struct.pack(">hB", stream, opcode) + struct.pack(">I", len(body)) + body


def string(s):
    return struct.pack(">H", len(s)) + s.encode()


def read_frame(s):
    data = b""
    while len(data) < 9:
        chunk = s.recv(9 - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    length = struct.unpack(">I", data[5:9])[0]
    body = b""
    while len(body) < length:
        chunk = s.recv(length - len(body))
        if not chunk:
            raise ConnectionError("closed")
        body += chunk
    return data[4], body


def take_string(body, at):
    n = struct.unpack(">H", body[at:at + 2])[0]
    return body[at + 2:at + 2 + n].decode(), at + 2 + n


def parse_event(body):
    kind, at = take_string(body, 0)
    change, at = take_string(body, at)
    n = body[at]
    addr = socket.inet_ntop(socket.AF_INET if n == 4 else socket.AF_INET6, body[at + 1:at + 1 + n])
    port = struct.unpack(">i", body[at + 1 + n:at + 5 + n])[0]
    return kind, change, addr, port


class Events:
    """A connection REGISTERed for events (TOPOLOGY_CHANGE and STATUS_CHANGE)."""

    def __init__(self, port, types=("TOPOLOGY_CHANGE", "STATUS_CHANGE")):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.s.sendall(frame(0, 0x01, struct.pack(">H", 1) + string("CQL_VERSION") +
                             string("3.0.0")))
        assert read_frame(self.s)[0] == 0x02  # READY
        self.s.sendall(frame(1, 0x0B, struct.pack(">H", len(types)) +
                             b"".join(string(t) for t in types)))
        assert read_frame(self.s)[0] == 0x02

    def schema_changes(self, n, timeout=10):
        """The next n SCHEMA_CHANGE events as (change, target, keyspace, name)."""
        got = []
        deadline = time.time() + timeout
        while len(got) < n:
            left = deadline - time.time()
            assert left > 0, "schema events: got %r" % got
            self.s.settimeout(left)
            opcode, body = read_frame(self.s)
            assert opcode == 0x0C
            kind, at = take_string(body, 0)
            assert kind == "SCHEMA_CHANGE"
            change, at = take_string(body, at)
            target, at = take_string(body, at)
            ks, at = take_string(body, at)
            name = take_string(body, at)[0] if target != "KEYSPACE" else ""
            got.append((change, target, ks, name))
        return got

    def expect(self, wanted, port, timeout=10):
        """Reads events until those of node :port are `wanted` (a list of changes, in order)."""
        got = []
        deadline = time.time() + timeout
        while got != wanted:
            left = deadline - time.time()
            assert left > 0, "events for :%d: got %r, want %r" % (port, got, wanted)
            self.s.settimeout(left)
            try:
                opcode, body = read_frame(self.s)
            except socket.timeout:
                continue
            assert opcode == 0x0C
            kind, change, addr, p = parse_event(body)
            if p != port:
                continue
            assert addr == "127.0.0.1"
            assert kind == ("TOPOLOGY_CHANGE" if change in ("NEW_NODE", "REMOVED_NODE")
                            else "STATUS_CHANGE")
            got.append(change)
            assert got == wanted[:len(got)], "events for :%d: got %r, want %r" % (port, got,
                                                                                 wanted)

    def close(self):
        self.s.close()


def peers_v2_of(port):
    """system.peers_v2 as the node at port lists it."""
    cluster = Cluster(["127.0.0.1"], port=port, protocol_version=4, connect_timeout=10)
    try:
        session = cluster.connect()
        host = [h for h in cluster.metadata.all_hosts() if h.endpoint.port == port][0]
        wait_pools(session, [host])
        return {r.native_port: r
                for r in session.execute("SELECT * FROM system.peers_v2", host=host)}
    finally:
        cluster.shutdown()


def registry_file(db, port):
    with open(os.path.join(db, "cassette-node-127.0.0.1-%d" % port)) as f:
        return dict(line.split(" ", 1) for line in f.read().splitlines() if " " in line)


def test_join_death_restart_and_leave_are_events(ring):
    db, port_a = ring["db"], ring["port_a"]
    events = Events(port_a)
    c, port_c = start_node(db, 0, "--rack", "rack3")
    try:
        events.expect(["NEW_NODE", "UP"], port_c)
        first = registry_file(db, port_c)
        assert first["state"] == "normal" and len(first["tokens"].split()) == 16
        assert port_c in peers_v2_of(port_a)

        kill(c)  # no clean stop: the lock goes with the process
        events.expect(["DOWN"], port_c, timeout=5)
        # a dead node stays a member, as Cassandra keeps it until removed
        row = peers_v2_of(port_a)[port_c]
        assert str(row.host_id) == first["host_id"]

        c, _ = start_node_again(db, port_c, "--rack", "rack3")
        events.expect(["UP"], port_c)
        again = registry_file(db, port_c)
        assert again["host_id"] == first["host_id"] and again["tokens"] == first["tokens"]

        assert stop_server(c) == 0  # a clean stop leaves the ring
        events.expect(["DOWN", "REMOVED_NODE"], port_c)
        assert registry_file(db, port_c)["state"] == "left"
        assert port_c not in peers_v2_of(port_a)
    finally:
        if c.poll() is None:
            kill(c)
        events.close()


def test_driver_fails_over_and_reconnects(ring):
    db = ring["db"]
    cluster = round_robin_cluster(ring["port_a"])
    session = cluster.connect()
    try:
        hosts = {h.endpoint.port: h for h in cluster.metadata.all_hosts()}
        b = hosts[ring["port_b"]]
        wait_pools(session, hosts.values())
        kill(ring["b"])
        wait_for(lambda: not b.is_up, timeout=10, what="the driver to see the node down")
        for _ in range(20):  # every query goes to the live node
            f = session.execute_async("SELECT key FROM system.local")
            assert f.result().one().key == "local"
        ring["b"], _ = start_node_again(db, ring["port_b"], "--dc", "dc2", "--rack", "rack7")
        wait_for(lambda: b.is_up, timeout=30, what="the driver to see the node up again")

        def served_by_b():
            f = session.execute_async("SELECT key FROM system.local")
            f.result()
            return f.coordinator_host is b
        wait_for(served_by_b, what="queries on the restarted node")
        local = local_of(session, b)
        assert local.host_id == b.host_id and local.data_center == "dc2"
        assert len(cluster.metadata.token_map.ring) == 32
    finally:
        cluster.shutdown()


def test_schema_changes_made_through_another_node_are_pushed(ring):
    events = Events(ring["port_a"], ("SCHEMA_CHANGE",))
    cluster = Cluster(["127.0.0.1"], port=ring["port_b"], protocol_version=4, connect_timeout=10)
    session = cluster.connect()
    try:
        b = [h for h in cluster.metadata.all_hosts() if h.endpoint.port == ring["port_b"]][0]
        wait_pools(session, [b])
        session.execute("CREATE KEYSPACE pushed WITH replication = "
                        "{'class': 'SimpleStrategy', 'replication_factor': 1}", host=b)
        assert events.schema_changes(1) == [("CREATED", "KEYSPACE", "pushed", "")]
        session.execute("CREATE TABLE pushed.t (k int PRIMARY KEY)", host=b)
        assert events.schema_changes(1) == [("CREATED", "TABLE", "pushed", "t")]
        session.execute("ALTER TABLE pushed.t ADD v text", host=b)
        assert events.schema_changes(1) == [("UPDATED", "TABLE", "pushed", "t")]
        session.execute("DROP KEYSPACE pushed", host=b)
        assert events.schema_changes(2) == [("DROPPED", "TABLE", "pushed", "t"),
                                            ("DROPPED", "KEYSPACE", "pushed", "")]
    finally:
        cluster.shutdown()
        events.close()


def test_a_memory_server_is_a_cluster_of_one():
    from conftest import start_server
    proc, host, port = start_server("--dc", "dcx")
    try:
        cluster = Cluster([host], port=port, protocol_version=4, connect_timeout=10)
        session = cluster.connect()
        try:
            assert [h.endpoint.port for h in cluster.metadata.all_hosts()] == [port]
            local = session.execute("SELECT * FROM system.local").one()
            assert local.data_center == "dcx" and local.rpc_port == port
            assert list(session.execute("SELECT * FROM system.peers_v2")) == []
        finally:
            cluster.shutdown()
    finally:
        assert stop_server(proc) == 0


def test_a_node_cannot_register_twice(ring):
    """A second process naming itself as a serving node (the same broadcast address and port)
    is refused: one process per node."""
    binary = os.environ.get("CASSETTE", "build/release/cassette")
    out = subprocess.run([binary, "serve", ring["db"], "--listen", "127.0.0.2", "--port",
                          str(ring["port_a"]), "--broadcast-address", "127.0.0.1"],
                         capture_output=True, text=True, timeout=20,
                         env=dict(os.environ, CASSETTE_DURABILITY="none"))
    assert out.returncode == 1
    assert "another cassette serve of this database is that node" in out.stderr
