"""A cassette server per test module, on a free port, stopped with SIGTERM.

CASSETTE names the shell binary (make test sets it). The server runs a
temporary database with durability NONE: these tests are about the protocol,
not the disk.
"""
import os
import re
import signal
import subprocess

import pytest


def start_server(*args):
    binary = os.environ.get("CASSETTE", "build/release/cassette")
    env = dict(os.environ, CASSETTE_DURABILITY="none")
    proc = subprocess.Popen([binary, "serve", "--memory", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    line = proc.stdout.readline()
    m = re.search(r"listening on ([0-9.]+):([0-9]+)", line)
    if not m:
        proc.kill()
        raise RuntimeError("cassette serve did not start: " + line + proc.stdout.read())
    return proc, m.group(1), int(m.group(2))


def stop_server(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


@pytest.fixture(scope="module")
def server():
    proc, host, port = start_server()
    yield host, port
    assert stop_server(proc) == 0
