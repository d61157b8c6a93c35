"""A scripted language server for fault tests: python3 fake_server.py MODE LOG.

Modes: ok, die, never-ready, hang, crash, crash-once, close, malformed, slow, sleepy (answers
after 5 s), slow-references (definitions at once, references after 5 s), serial (answers one
request at a time, 0.3 s each, like pyright), slow-start (ready after 5 s), content-modified,
cm-forever, bad-result. Every received method is appended to LOG,
one per line; a `$/cancelRequest` adds `cancelled <method>` when it names a request still
unanswered (which is then answered with RequestCancelled), `cancelled unknown` otherwise.
"""
import json
import os
import queue
import sys
import threading
import time

mode = sys.argv[1]
log = open(sys.argv[2], "a", buffering=1)
inp = sys.stdin.buffer
out = sys.stdout.buffer
lock = threading.Lock()


def send(msg):
    msg["jsonrpc"] = "2.0"
    body = json.dumps(msg).encode()
    with lock:
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()


def read():
    headers = {}
    while True:
        line = inp.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        k, v = line.split(b":", 1)
        headers[k.strip().lower()] = v.strip()
    return json.loads(inp.read(int(headers[b"content-length"])))


content_modified_left = 2
# Requests received and not answered yet: id -> method.
pending = {}
serial_queue = queue.Queue()


def answer(resp):
    """Send a deferred answer unless the request was cancelled meanwhile."""
    with lock:
        if pending.pop(resp["id"], None) is None:
            return
    send(resp)


def serial_worker():
    while True:
        resp = serial_queue.get()
        time.sleep(0.3)
        answer(resp)


threading.Thread(target=serial_worker, daemon=True).start()
if mode == "die":
    sys.stderr.write("fatal: bad configuration\n")
    sys.stderr.flush()
    sys.exit(2)
while True:
    msg = read()
    if msg is None:
        log.write("eof\n")
        break
    method = msg.get("method")
    if method is None:
        log.write("response %s\n" % json.dumps(msg.get("result")))
        continue
    log.write(method + "\n")
    if method == "initialize":
        send({"id": msg["id"], "result": {
            "capabilities": {"definitionProvider": True, "referencesProvider": True,
                             "positionEncoding": "utf-16", "textDocumentSync": 1},
            "serverInfo": {"name": "fake", "version": "0.1"}}})
    elif method == "initialized":
        # Exercise the client's handlers for server requests and notifications.
        send({"id": "cfg", "method": "workspace/configuration",
              "params": {"items": [{"section": "python.analysis"}, {"section": "nope"}]}})
        send({"id": "wdp", "method": "window/workDoneProgress/create", "params": {"token": "t"}})
        send({"method": "window/logMessage", "params": {"type": 3, "message": "hello: 1 source file"}})
        send({"method": "custom/unknownNotification", "params": {}})
    elif method == "textDocument/didOpen":
        diags = {"method": "textDocument/publishDiagnostics",
                 "params": {"uri": msg["params"]["textDocument"]["uri"], "diagnostics": []}}
        if mode == "slow-start":
            threading.Timer(5.0, send, args=(diags,)).start()
        elif mode != "never-ready":
            send(diags)
    elif method == "shutdown":
        send({"id": msg["id"], "result": None})
    elif method == "exit":
        os._exit(0)  # without waiting for answers still scheduled (slow, sleepy)
    elif method == "$/cancelRequest":
        with lock:
            cancelled = pending.pop(msg["params"]["id"], None)
        log.write("cancelled %s\n" % (cancelled or "unknown"))
        if cancelled:
            send({"id": msg["params"]["id"],
                  "error": {"code": -32800, "message": "request cancelled"}})
    elif method in ("textDocument/definition", "textDocument/references"):
        uri = msg["params"]["textDocument"]["uri"]
        loc = {"uri": uri, "range": {"start": {"line": 0, "character": 4},
                                     "end": {"line": 0, "character": 10}}}
        resp = {"id": msg["id"], "result": loc if method.endswith("definition") else [loc]}
        slow_references = mode == "slow-references" and method == "textDocument/references"
        if mode in ("hang", "slow", "sleepy", "serial") or slow_references:
            with lock:
                pending[msg["id"]] = method
        if mode == "hang":
            continue
        if mode == "crash":
            os._exit(3)
        if mode == "crash-once" and not os.path.exists(sys.argv[2] + ".crashed"):
            open(sys.argv[2] + ".crashed", "w").close()
            os._exit(3)
        if mode == "close":
            os.close(1)
            time.sleep(60)
        if mode == "malformed":
            with lock:
                out.write(b"Content-Length: 7\r\n\r\n{bad!!}")
                out.flush()
            continue
        if mode in ("slow", "sleepy") or slow_references:
            threading.Timer(0.3 if mode == "slow" else 5.0, answer, args=(resp,)).start()
            continue
        if mode == "serial":
            serial_queue.put(resp)
            continue
        if mode == "bad-result":
            resp["result"] = {"uri": 42}
        if (mode == "content-modified" and content_modified_left > 0) or mode == "cm-forever":
            content_modified_left -= 1
            send({"id": msg["id"], "error": {"code": -32801, "message": "content modified"}})
            continue
        send(resp)
    elif "id" in msg:
        send({"id": msg["id"], "error": {"code": -32601, "message": "no such method"}})
