"""Schemathesis hooks for scripts/api-contract-test: the service's own rules as checks under generated inputs.

before_call sends a share of the generated requests with a wrong or missing token, a Host that does not name the
service, or an Origin of another site; the check `kiosk_rules` then requires what docs/service.md "Security" says:
a foreign Host is 421 `wrong_host` (before anything else), no credentials 401 with `WWW-Authenticate: Bearer`,
a wrong token 403 `forbidden`, a state-changing request from another origin 403 `foreign_origin`, and every
response carries the common headers. Every error body is the documented error object.
"""

import json
import os
import random

import schemathesis

TOKEN = os.environ["EMRTD_TOKEN"]
PORT = os.environ["EMRTD_PORT"]
GOOD_HOSTS = {f"127.0.0.1:{PORT}", f"localhost:{PORT}", f"[::1]:{PORT}"}
BAD_HOSTS = [f"evil.example:{PORT}", "127.0.0.1", f"127.0.0.1:{int(PORT) + 1}", f"10.0.0.1:{PORT}", "localhost"]
GOOD_ORIGINS = [f"http://127.0.0.1:{PORT}", f"http://localhost:{PORT}"]
BAD_ORIGINS = ["http://evil.example", f"https://127.0.0.1:{PORT}", "null", f"http://127.0.0.1:{PORT}.evil.example"]
STATE_CHANGING = {"POST", "DELETE", "PUT", "PATCH"}
rng = random.Random(int(os.environ.get("EMRTD_SEED", "1")))


def header(headers, name):
    for k, v in (headers or {}).items():
        if k.lower() == name.lower():
            return v
    return None


@schemathesis.hook
def before_call(context, case, **kwargs):
    # only in the rules run (EMRTD_MUTATE=1): the contract run sends what the document describes
    if os.environ.get("EMRTD_MUTATE") != "1":
        return
    headers = dict(case.headers or {})
    roll = rng.random()
    if roll < 0.08:
        headers["Host"] = rng.choice(BAD_HOSTS)
    elif roll < 0.16:
        headers["Authorization"] = "Bearer " + rng.choice(["0" * len(TOKEN), TOKEN[:-1], TOKEN + "0", ""])
    elif roll < 0.22:
        headers["Authorization"] = rng.choice(["Basic " + TOKEN, TOKEN, "bearer " + TOKEN])
    elif roll < 0.30:
        headers["Origin"] = rng.choice(BAD_ORIGINS)
    elif roll < 0.36:
        headers["Origin"] = rng.choice(GOOD_ORIGINS)
    case.headers = headers


def response_header(response, name):
    value = header(response.headers, name)
    return value[0] if isinstance(value, list) and value else value


def error_code(response):
    try:
        body = json.loads(response.content)
        return body["error"]["code"]
    except Exception:
        return None


@schemathesis.check
def kiosk_rules(ctx, response, case):
    with open(os.environ["EMRTD_REQUEST_COUNT"] + ".rules", "a") as f:  # the script checks that this check ran
        f.write("1\n")
    request = response.request
    method = request.method.upper()
    path = request.url.split("://", 1)[1].split("/", 1)[1].split("?", 1)[0]
    path = "/" + path
    status = response.status_code
    host = header(request.headers, "Host")
    auth = header(request.headers, "Authorization")
    cookie = header(request.headers, "Cookie")
    origin = header(request.headers, "Origin")
    assert response_header(response, "Cache-Control") == "no-store", f"{method} {path}: no Cache-Control: no-store"
    assert response_header(response, "Referrer-Policy") == "no-referrer", f"{method} {path}: no Referrer-Policy"
    assert status < 500, f"{method} {path}: server error {status}"
    if host is not None and host.lower() not in GOOD_HOSTS:
        assert status == 421 and error_code(response) == "wrong_host", f"Host {host!r} answered {status}"
        return True
    if path == "/login":
        return True
    if auth is None and cookie is None:
        assert status == 401, f"{method} {path} without credentials answered {status}"
        assert response_header(response, "WWW-Authenticate") == "Bearer", f"{method} {path}: 401 without WWW-Authenticate"
        return True
    if auth is not None and auth != f"Bearer {TOKEN}":
        if auth.startswith("Bearer "):
            assert status == 403, f"{method} {path} with a wrong token answered {status}"
        else:
            assert status == 401, f"{method} {path} with a non-Bearer Authorization answered {status}"
        return True
    if method in STATE_CHANGING and origin is not None and origin.lower() not in GOOD_ORIGINS:
        assert status == 403 and error_code(response) == "foreign_origin", f"Origin {origin!r} answered {status}"
        return True
    assert status not in (401, 421), f"{method} {path} with valid credentials answered {status}"
    if status == 403:
        assert error_code(response) != "forbidden", f"{method} {path}: the valid token was refused"
    if status >= 400 and method != "HEAD":
        ctype = response_header(response, "Content-Type")
        assert ctype and ctype.startswith("application/json"), f"{method} {path}: error {status} as {ctype}"
        assert error_code(response) is not None, f"{method} {path}: error {status} without the error object"
    return True


@schemathesis.hook
def after_call(context, case, response):
    # one line per request, for scripts/api-contract-test's count
    with open(os.environ["EMRTD_REQUEST_COUNT"], "a") as f:
        f.write("1\n")
