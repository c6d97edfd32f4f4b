"""--auth: PasswordAuthenticator and CassandraAuthorizer as the Python driver meets them.

The expectations are Cassandra's (PasswordAuthenticator, CassandraRoleManager,
ClientState and the role statements of 4.1): the default superuser, the SASL
PLAIN exchange, the texts of refused logins and of missing permissions, what a
new object's creator is granted, what a drop revokes.
"""
import pytest
from cassandra import AuthenticationFailed, InvalidRequest, Unauthorized
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import Cluster, NoHostAvailable
from cassandra.protocol import SyntaxException

from conftest import start_server, stop_server


@pytest.fixture(scope="module")
def auth_server():
    proc, host, port = start_server("--auth")
    yield host, port
    assert stop_server(proc) == 0


def connect(srv, user, password, **kw):
    host, port = srv
    cluster = Cluster([host], port=port, auth_provider=PlainTextAuthProvider(user, password),
                      connect_timeout=10, **kw)
    return cluster, cluster.connect()


@pytest.fixture(scope="module")
def admin(auth_server):
    cluster, session = connect(auth_server, "cassandra", "cassandra")
    session.execute("CREATE KEYSPACE app WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    session.execute("CREATE TABLE app.msgs (room text, id int, body text, PRIMARY KEY (room, id))")
    session.execute("CREATE TABLE app.secret (k int PRIMARY KEY, v text)")
    session.execute("CREATE ROLE reader WITH PASSWORD = 'r3ad' AND LOGIN = true")
    session.execute("CREATE ROLE writer WITH PASSWORD = 'wr1te' AND LOGIN = true")
    session.execute("CREATE ROLE nologin WITH PASSWORD = 'x'")
    session.execute("GRANT SELECT ON app.msgs TO reader")
    session.execute("GRANT MODIFY ON KEYSPACE app TO writer")
    yield session
    cluster.shutdown()


def test_default_superuser_logs_in(auth_server):
    cluster, session = connect(auth_server, "cassandra", "cassandra")
    row = session.execute("SELECT role, is_superuser, can_login FROM system_auth.roles "
                          "WHERE role = 'cassandra'").one()
    assert (row.role, row.is_superuser, row.can_login) == ("cassandra", True, True)
    h = session.execute("SELECT salted_hash FROM system_auth.roles WHERE role = 'cassandra'").one()
    assert h.salted_hash.startswith("$2a$10$") and len(h.salted_hash) == 60
    cluster.shutdown()


def test_wrong_password_is_refused_with_cassandras_text(auth_server):
    with pytest.raises(NoHostAvailable) as e:
        connect(auth_server, "cassandra", "wrong")
    (err,) = e.value.errors.values()
    assert isinstance(err, AuthenticationFailed)
    assert "Provided username cassandra and/or password are incorrect" in str(err)


def test_unknown_user_is_refused_the_same_way(auth_server):
    with pytest.raises(NoHostAvailable) as e:
        connect(auth_server, "nobody", "x")
    assert "Provided username nobody and/or password are incorrect" in str(e.value)


def test_no_credentials_is_refused(auth_server):
    host, port = auth_server
    cluster = Cluster([host], port=port, connect_timeout=10)
    with pytest.raises(NoHostAvailable) as e:
        cluster.connect()
    assert "requires authentication" in str(e.value) or "Unexpected message" in str(e.value)
    cluster.shutdown()


def test_role_without_login_cannot_log_in(admin, auth_server):
    with pytest.raises(NoHostAvailable) as e:
        connect(auth_server, "nologin", "x")
    assert "nologin is not permitted to log in" in str(e.value)


def test_select_needs_select_permission(admin, auth_server):
    admin.execute("INSERT INTO app.msgs (room, id, body) VALUES ('r', 1, 'hi')")
    cluster, s = connect(auth_server, "reader", "r3ad")
    assert s.execute("SELECT body FROM app.msgs WHERE room = 'r'").one().body == "hi"
    with pytest.raises(Unauthorized) as e:
        s.execute("SELECT * FROM app.secret")
    assert ("User reader has no SELECT permission on <table app.secret> or any of its parents"
            in str(e.value))
    with pytest.raises(Unauthorized) as e:
        s.execute("INSERT INTO app.msgs (room, id, body) VALUES ('r', 2, 'x')")
    assert "User reader has no MODIFY permission on <table app.msgs>" in str(e.value)
    # the tables drivers read are readable by everyone
    assert s.execute("SELECT release_version FROM system.local").one()
    assert len(list(s.execute("SELECT keyspace_name FROM system_schema.keyspaces"))) > 0
    with pytest.raises(Unauthorized):
        s.execute("SELECT * FROM system_auth.roles")
    cluster.shutdown()


def test_keyspace_grant_covers_its_tables_and_prepared_statements(admin, auth_server):
    cluster, s = connect(auth_server, "writer", "wr1te")
    ins = s.prepare("INSERT INTO app.secret (k, v) VALUES (?, ?)")
    s.execute(ins, (1, "one"))
    with pytest.raises(Unauthorized):
        s.execute("SELECT * FROM app.secret")
    # a conditional write reads: it needs SELECT as well (ModificationStatement.authorize)
    with pytest.raises(Unauthorized) as e:
        s.execute("INSERT INTO app.secret (k, v) VALUES (2, 'two') IF NOT EXISTS")
    assert "no SELECT permission" in str(e.value)
    s.execute("BEGIN BATCH INSERT INTO app.secret (k, v) VALUES (3, 'c'); "
              "INSERT INTO app.msgs (room, id) VALUES ('b', 1); APPLY BATCH")
    cluster.shutdown()
    # a batch needs every statement's permission
    cluster, s = connect(auth_server, "reader", "r3ad")
    with pytest.raises(Unauthorized):
        s.execute("BEGIN BATCH INSERT INTO app.msgs (room, id) VALUES ('b', 2); APPLY BATCH")
    cluster.shutdown()


def test_grant_and_revoke_take_effect_on_open_sessions(admin, auth_server):
    cluster, s = connect(auth_server, "reader", "r3ad")
    with pytest.raises(Unauthorized):
        s.execute("SELECT * FROM app.secret")
    admin.execute("GRANT SELECT ON app.secret TO reader")
    assert s.execute("SELECT * FROM app.secret WHERE k = 1").one().v == "one"
    admin.execute("REVOKE SELECT ON app.secret FROM reader")
    with pytest.raises(Unauthorized):
        s.execute("SELECT * FROM app.secret")
    cluster.shutdown()


def test_roles_granted_to_a_role_give_their_permissions(admin, auth_server):
    admin.execute("CREATE ROLE secret_readers")
    admin.execute("GRANT SELECT ON app.secret TO secret_readers")
    admin.execute("CREATE ROLE carol WITH PASSWORD = 'c' AND LOGIN = true")
    cluster, s = connect(auth_server, "carol", "c")
    with pytest.raises(Unauthorized):
        s.execute("SELECT * FROM app.secret")
    admin.execute("GRANT secret_readers TO carol")
    assert s.execute("SELECT * FROM app.secret WHERE k = 1").one().v == "one"
    with pytest.raises(InvalidRequest) as e:
        admin.execute("GRANT secret_readers TO carol")
    assert "carol is a member of secret_readers" in str(e.value)
    with pytest.raises(InvalidRequest) as e:
        admin.execute("GRANT carol TO secret_readers")
    assert "carol is a member of secret_readers" in str(e.value)
    rows = admin.execute("LIST ROLES OF carol")
    assert [r.role for r in rows] == ["carol", "secret_readers"]
    cluster.shutdown()


def test_creator_gets_permissions_on_what_it_creates(admin, auth_server):
    admin.execute("CREATE ROLE dev WITH PASSWORD = 'd' AND LOGIN = true")
    admin.execute("GRANT CREATE ON ALL KEYSPACES TO dev")
    cluster, s = connect(auth_server, "dev", "d")
    s.execute("CREATE KEYSPACE devks WITH replication = "
              "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    s.execute("CREATE TABLE devks.t (k int PRIMARY KEY)")
    s.execute("INSERT INTO devks.t (k) VALUES (1)")
    assert s.execute("SELECT k FROM devks.t").one().k == 1
    perms = {(r.resource, r.permission) for r in admin.execute("LIST ALL PERMISSIONS OF dev")}
    assert ("<keyspace devks>", "MODIFY") in perms and ("<table devks.t>", "SELECT") in perms
    assert ("<all functions in devks>", "EXECUTE") in perms
    s.execute("DROP KEYSPACE devks")
    perms = {r.resource for r in admin.execute("LIST ALL PERMISSIONS OF dev")}
    assert perms == {"<all keyspaces>"}
    cluster.shutdown()


def test_role_statements_check_their_rules(admin, auth_server):
    cluster, s = connect(auth_server, "reader", "r3ad")
    with pytest.raises(Unauthorized) as e:
        s.execute("CREATE ROLE x")
    assert ("User reader does not have sufficient privileges to perform the requested operation"
            in str(e.value))
    with pytest.raises(Unauthorized) as e:
        s.execute("ALTER ROLE reader WITH LOGIN = false")
    assert "You aren't allowed to alter LOGIN" in str(e.value)
    with pytest.raises(Unauthorized) as e:
        s.execute("ALTER ROLE reader WITH SUPERUSER = true")
    assert "You aren't allowed to alter your own superuser status" in str(e.value)
    with pytest.raises(Unauthorized) as e:
        s.execute("LIST ALL PERMISSIONS")
    assert "You are not authorized to view everyone's permissions" in str(e.value)
    mine = {(r.resource, r.permission) for r in s.execute("LIST ALL PERMISSIONS OF reader")}
    assert mine == {("<table app.msgs>", "SELECT")}
    # one's own password may change
    s.execute("ALTER ROLE reader WITH PASSWORD = 'n3w'")
    cluster.shutdown()
    cluster, s = connect(auth_server, "reader", "n3w")
    cluster.shutdown()
    with pytest.raises(InvalidRequest) as e:
        admin.execute("CREATE ROLE reader")
    assert "reader already exists" in str(e.value)
    with pytest.raises(InvalidRequest) as e:
        admin.execute("DROP ROLE cassandra")
    assert "Cannot DROP primary role for current login" in str(e.value)
    with pytest.raises(InvalidRequest) as e:
        admin.execute("DROP ROLE ghost")
    assert "ghost doesn't exist" in str(e.value)
    with pytest.raises(SyntaxException) as e:
        admin.execute("GRANT CREATE ON app.msgs TO reader")
    assert "Resource type DataResource does not support any of the requested permissions" in str(
        e.value)
    with pytest.raises(InvalidRequest) as e:
        admin.execute("GRANT SELECT ON app.nope TO reader")
    assert "Resource <table app.nope> doesn't exist" in str(e.value)
    with pytest.raises(Unauthorized) as e:
        admin.execute("DROP TABLE system_auth.roles")
    assert "Cannot DROP <table system_auth.roles>" in str(e.value)


def test_list_roles_and_users(admin):
    roles = {r.role: r for r in admin.execute("LIST ROLES")}
    assert roles["cassandra"].super and roles["cassandra"].login
    assert not roles["nologin"].login and roles["nologin"].datacenters == "ALL"
    assert roles["reader"].options == {} or roles["reader"].options is None
    users = [u.name for u in admin.execute("LIST USERS")]
    assert "cassandra" in users and "nologin" not in users
    assert users == sorted(users)


def test_dropped_role_loses_its_sessions_permissions(admin, auth_server):
    admin.execute("CREATE ROLE temp WITH PASSWORD = 't' AND LOGIN = true")
    admin.execute("GRANT SELECT ON app.msgs TO temp")
    cluster, s = connect(auth_server, "temp", "t")
    assert s.execute("SELECT * FROM app.msgs WHERE room = 'r'").one()
    admin.execute("DROP ROLE temp")
    with pytest.raises(Unauthorized):
        s.execute("SELECT * FROM app.msgs WHERE room = 'r'")
    cluster.shutdown()
    with pytest.raises(NoHostAvailable):
        connect(auth_server, "temp", "t")


@pytest.mark.parametrize("version", [3, 4, 5])
def test_every_protocol_version_logs_in(auth_server, version):
    cluster, s = connect(auth_server, "cassandra", "cassandra", protocol_version=version)
    assert s.execute("SELECT cluster_name FROM system.local").one()
    cluster.shutdown()


def test_roles_survive_a_restart(tmp_path):
    db = str(tmp_path / "db")
    import subprocess, os, re
    binary = os.environ.get("CASSETTE", "build/release/cassette")

    def serve():
        env = dict(os.environ, CASSETTE_DURABILITY="none")
        p = subprocess.Popen([binary, "serve", db, "--port", "0", "--auth"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
        m = re.search(r"listening on ([0-9.]+):([0-9]+)", p.stdout.readline())
        assert m
        return p, (m.group(1), int(m.group(2)))

    p, srv = serve()
    cluster, s = connect(srv, "cassandra", "cassandra")
    s.execute("CREATE ROLE admin2 WITH PASSWORD = 'a' AND LOGIN = true AND SUPERUSER = true")
    s.execute("ALTER ROLE cassandra WITH PASSWORD = 'changed'")
    cluster.shutdown()
    assert stop_server(p) == 0
    p, srv = serve()
    cluster, s = connect(srv, "admin2", "a")
    cluster.shutdown()
    with pytest.raises(NoHostAvailable):
        connect(srv, "cassandra", "cassandra")
    assert stop_server(p) == 0
