"""TLS (--tls-cert, --tls-client-ca) with the Python driver, on certificates this test
makes with the openssl command (a CA, a server certificate for 127.0.0.1, a client
certificate): nothing secret is kept in the tree."""
import os
import ssl
import subprocess

import pytest
from cassandra.cluster import Cluster, NoHostAvailable

from conftest import start_server, stop_server


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("tls"))
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test-ca",
            "-keyout", "ca.key", "-out", "ca.pem", cwd=d)
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1"), ("client", None)):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + name,
                "-keyout", name + ".key", "-out", name + ".csr", cwd=d)
        extra = []
        if ext:
            with open(os.path.join(d, name + ".ext"), "w") as f:
                f.write(ext + "\n")
            extra = ["-extfile", name + ".ext"]
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "2", "-out", name + ".pem", *extra, cwd=d)
    return d


def client_context(certs, with_cert):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(os.path.join(certs, "ca.pem"))
    ctx.check_hostname = False  # the certificate names 127.0.0.1; the driver connects by IP
    if with_cert:
        ctx.load_cert_chain(os.path.join(certs, "client.pem"), os.path.join(certs, "client.key"))
    return ctx


def query_over(host, port, ctx, version=4, timeout=10):
    cluster = Cluster([host], port=port, protocol_version=version, ssl_context=ctx,
                      connect_timeout=timeout, control_connection_timeout=timeout)
    try:
        return cluster.connect().execute("SELECT key FROM system.local").one().key
    finally:
        cluster.shutdown()


@pytest.mark.parametrize("version", [4, 5])
def test_the_driver_talks_tls_and_verifies_the_servers_certificate(certs, version):
    proc, host, port = start_server("--tls-cert", os.path.join(certs, "server.pem"),
                                    "--tls-key", os.path.join(certs, "server.key"))
    try:
        assert query_over(host, port, client_context(certs, False), version) == "local"
        # a plain client gets nowhere
        with pytest.raises(NoHostAvailable):
            query_over(host, port, None, timeout=2)
    finally:
        assert stop_server(proc) == 0


def test_a_required_client_certificate_is_checked(certs):
    proc, host, port = start_server("--tls-cert", os.path.join(certs, "server.pem"),
                                    "--tls-key", os.path.join(certs, "server.key"),
                                    "--tls-client-ca", os.path.join(certs, "ca.pem"),
                                    "--tls-require-client-cert")
    try:
        assert query_over(host, port, client_context(certs, True)) == "local"
        with pytest.raises(NoHostAvailable):
            query_over(host, port, client_context(certs, False), timeout=2)
    finally:
        assert stop_server(proc) == 0


def test_a_key_that_does_not_load_stops_the_server_with_a_message(certs, tmp_path):
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n")
    binary = os.environ.get("CASSETTE", "build/release/cassette")
    r = subprocess.run([binary, "serve", "--memory", "--port", "0", "--tls-cert",
                        os.path.join(certs, "server.pem"), "--tls-key", str(bad)],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 1
    assert "cannot load the private key" in r.stderr
