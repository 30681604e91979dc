"""The SSE streams and the read JSON of a real read, checked against docs/openapi.json (scripts/api-contract-test).

Starts a read of the simulated passport, follows GET /v1/reads/{id}/events to its end, follows GET /v1/events for
the same time, and validates every event's data against the schema `x-sse-events` names for its event type, the
read's JSON against `Read`, and the face and result fragment's media types. Exits non-zero on any mismatch.
"""

import http.client
import json
import os
import sys
import threading

from jsonschema import Draft202012Validator

doc = json.load(open(sys.argv[1]))
port = int(os.environ["EMRTD_PORT"])
token = os.environ["EMRTD_TOKEN"]
auth = {"Authorization": "Bearer " + token, "Host": f"127.0.0.1:{port}"}
failures = []


def validator(ref):
    return Draft202012Validator({"$ref": ref, "components": doc["components"]})


def check(ref, value, what):
    errors = sorted(validator(ref).iter_errors(value), key=str)
    for e in errors:
        failures.append(f"{what}: {e.message} at {list(e.absolute_path)}")


def sse_events(path):
    return doc["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]["x-sse-events"]


def request(method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = dict(auth)
    if body is not None:
        headers["Content-Type"] = "application/json"
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, r.getheader("Content-Type"), data


def follow(path, schemas, seen, holder=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("GET", path, headers=auth)
    if holder is not None:
        holder.append(c)
    r = c.getresponse()
    if r.status != 200 or not (r.getheader("Content-Type") or "").startswith("text/event-stream"):
        failures.append(f"{path}: {r.status} {r.getheader('Content-Type')}")
        return
    event = None
    try:
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                seen.append(event)
                if event not in schemas:
                    failures.append(f"{path}: undocumented event type {event!r}")
                else:
                    check(schemas[event]["$ref"], json.loads(line[6:]), f"{path} event {event}")
    except (TimeoutError, OSError, ValueError, AttributeError, http.client.HTTPException):
        pass  # the terminal stream stays open: the main thread closes it once the read's stream has ended
    c.close()


terminal_seen = []
terminal_connection = []
terminal = threading.Thread(
    target=follow, args=("/v1/events", sse_events("/v1/events"), terminal_seen, terminal_connection), daemon=True)
terminal.start()

status, ctype, data = request("GET", "/v1/readers")
check("#/components/schemas/Readers", json.loads(data), "GET /v1/readers")
readers = [r["name"] for r in json.loads(data)["readers"] if r["cardPresent"]]
if not readers:
    sys.exit("sse_check: no reader with a card present (is emrtd simulate running?)")
access = {"documentNumber": "L898902C3", "dateOfBirth": "740812", "dateOfExpiry": "310415"}
status, ctype, data = request("POST", "/v1/reads", {"reader": readers[0], "access": access, "waitSeconds": 30})
if status != 201:
    sys.exit(f"sse_check: POST /v1/reads answered {status}: {data[:200]!r}")
started = json.loads(data)
check("#/components/schemas/ReadStarted", started, "POST /v1/reads")
read_id = started["id"]

read_seen = []
follow(f"/v1/reads/{read_id}/events", sse_events("/v1/reads/{id}/events"), read_seen)
if read_seen[:1] != ["state"] or read_seen[-1] not in ("result", "error") or "progress" not in read_seen:
    failures.append(f"read events out of order: {read_seen}")

status, ctype, data = request("GET", f"/v1/reads/{read_id}")
read = json.loads(data)
check("#/components/schemas/Read", read, "GET /v1/reads/{id}")
if read.get("status") != "done" or "report" not in read or "timing" not in read:
    failures.append(f"the read of the simulated passport is not done with a report and timing: {read.get('status')}")
status, ctype, _ = request("GET", f"/v1/reads/{read_id}/face")
if (status, ctype) != (200, "image/jpeg"):
    failures.append(f"face: {status} {ctype}")
status, ctype, _ = request("GET", f"/v1/reads/{read_id}/face?format=stored")
if status != 200 or ctype not in ("image/jpeg", "image/jp2", "image/png", "application/octet-stream"):
    failures.append(f"stored face: {status} {ctype}")
status, ctype, _ = request("GET", f"/v1/reads/{read_id}/result.html")
if status != 200 or not (ctype or "").startswith("text/html"):
    failures.append(f"result.html: {status} {ctype}")
status, _, _ = request("DELETE", f"/v1/reads/{read_id}")
if status != 204:
    failures.append(f"DELETE: {status}")
status, _, data = request("GET", f"/v1/reads/{read_id}")
if status != 404:
    failures.append(f"GET after DELETE: {status}")
check("#/components/schemas/Error", json.loads(data), "404 after DELETE")

import socket  # noqa: E402

if terminal_connection and terminal_connection[0].sock is not None:
    terminal_connection[0].sock.shutdown(socket.SHUT_RDWR)
terminal.join(10)
if "reader" not in terminal_seen or "read" not in terminal_seen:
    failures.append(f"terminal events: {terminal_seen}")

for f in failures:
    print("sse_check: FAIL " + f)
print(f"sse_check: read events {read_seen}; terminal events {sorted(set(terminal_seen))}")
sys.exit(1 if failures else 0)
