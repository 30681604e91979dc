#!/usr/bin/env python3
"""Serve-mode latency and memory of `emrtd serve` (docs/performance.md, "serve" section).

Runs `emrtd serve` and `emrtd simulate` (the virtual passport behind vsmartcard's vpcd) as separate
processes through pcscd, exactly as the integration tests do, and measures through the HTTP API:

  * idle resident memory of the service;
  * card presented -> first APDU and card presented -> result, against the read's own transport time
    (the service reports these per read in GET /v1/reads/{id} "timing": the moment pcscd reported the
    card, the first command sent, the result ready, and the time spent inside SCardTransmit);
  * resident memory before and after N reads through the API (POST, wait, GET report, GET face, DELETE).

Needs pcscd with the vpcd driver; hold the shared lock while it runs:
    flock /tmp/emrtd-pcsc.lock python3 scripts/serve-bench.py --emrtd .build/release/emrtd
"""
import argparse, json, os, signal, statistics, subprocess, sys, tempfile, time, urllib.request, urllib.error

READER = "Virtual PCD 00 00"


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class API:
    def __init__(self, port, token):
        self.base = f"http://127.0.0.1:{port}"
        self.token = token

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                raw = r.read()
                return r.status, raw
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def read(self, mrz, wait=30, files=None):
        body = {"reader": READER, "access": {"mrz": mrz}, "waitSeconds": wait}
        if files:
            body["files"] = files
        status, raw = self.call("POST", "/v1/reads", body)
        if status != 201:
            raise SystemExit(f"POST /v1/reads: {status} {raw[:200]!r}")
        return json.loads(raw)["id"]

    def wait(self, rid, seconds=60):
        deadline = time.time() + seconds
        while time.time() < deadline:
            status, raw = self.call("GET", f"/v1/reads/{rid}")
            j = json.loads(raw)
            if j.get("status") in ("done", "failed", "cancelled"):
                return j
            time.sleep(0.01)
        raise SystemExit(f"read {rid} did not finish")


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def summary(name, values):
    return f"{name:34s} median {statistics.median(values):8.2f} ms   p95 {pct(values, 95):8.2f} ms   max {max(values):8.2f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emrtd", default=".build/release/emrtd")
    ap.add_argument("--profile", default="pace-gm-brainpool-aes128")
    ap.add_argument("--presentations", type=int, default=20, help="reads with a fresh card presentation each")
    ap.add_argument("--reads", type=int, default=1000, help="reads for the memory growth figure")
    ap.add_argument("--files", default="", help="comma-separated files for the memory run (default: all)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    emrtd = os.path.abspath(a.emrtd)
    tmp = tempfile.mkdtemp(prefix="emrtd-serve-bench-")
    out = subprocess.run([emrtd, "simulate", "--profile", a.profile, "--save", tmp + "/doc"],
                         capture_output=True, text=True, check=True).stdout
    values = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    mrz, trust, folder = values["mrz"], values["trust"], values["folder"]

    serve = subprocess.Popen([emrtd, "serve", "--listen", "127.0.0.1:0", "--token-file", tmp + "/token", "--trust", trust,
                              "--retention", "0", "--max-finished", "1", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = serve.stdout.readline()
    port = int(first.strip().rsplit(":", 1)[1])
    api = API(port, open(tmp + "/token").read().strip())
    sims = []

    def simulate(extra=()):
        p = subprocess.Popen([emrtd, "simulate", "--profile", folder, "--quiet"] + list(extra),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sims.append(p)
        return p

    def stop(p):
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()

    result = {"profile": a.profile}
    try:
        time.sleep(2)
        result["idleRSSKB"] = rss_kb(serve.pid)

        # 1. card presented -> first APDU / result, each read with the card put on the reader afresh
        first_apdu, to_result, transport, overhead = [], [], [], []
        for _ in range(a.presentations):
            rid = api.read(mrz)
            time.sleep(0.3)
            sim = simulate()
            j = api.wait(rid)
            stop(sim)
            if j["status"] != "done":
                raise SystemExit(f"read failed: {j.get('error')}")
            t = j["timing"]
            first_apdu.append(t["presentedToFirstAPDUMs"])
            to_result.append(t["presentedToResultMs"])
            transport.append(t["transportMs"])
            overhead.append(t["overheadMs"])
            api.call("DELETE", f"/v1/reads/{rid}")
            time.sleep(0.3)
        result["presentedToFirstAPDUMs"] = {"median": statistics.median(first_apdu), "p95": pct(first_apdu, 95), "max": max(first_apdu)}
        result["presentedToResultMs"] = {"median": statistics.median(to_result), "p95": pct(to_result, 95)}
        result["transportMs"] = {"median": statistics.median(transport), "p95": pct(transport, 95)}
        result["overheadMs"] = {"median": statistics.median(overhead), "p95": pct(overhead, 95), "max": max(overhead)}

        # 2. resident memory over N reads through the API (the card stays on the reader)
        files = [f for f in a.files.split(",") if f] or None
        sim = simulate()

        def one():
            rid = api.read(mrz, files=files)
            j = api.wait(rid)
            if j["status"] != "done":
                raise SystemExit(f"read failed: {j.get('error')}")
            api.call("GET", f"/v1/reads/{rid}/face")
            api.call("DELETE", f"/v1/reads/{rid}")

        for _ in range(20):
            one()
        time.sleep(1)
        before = rss_kb(serve.pid)
        started = time.time()
        for _ in range(a.reads):
            one()
        elapsed = time.time() - started
        time.sleep(1)
        after = rss_kb(serve.pid)
        stop(sim)
        result.update({"reads": a.reads, "files": files or "all", "rssBeforeKB": before, "rssAfterKB": after,
                       "growthKB": after - before, "secondsPerRead": elapsed / a.reads})
    finally:
        for p in sims:
            if p.poll() is None:
                stop(p)
        serve.send_signal(signal.SIGTERM)
        serve.wait(5)

    if a.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"emrtd serve, profile {a.profile}")
        print(f"idle RSS                           {result['idleRSSKB'] / 1024:8.1f} MB")
        print(summary("card presented -> first APDU", first_apdu))
        print(summary("card presented -> result", to_result))
        print(summary("  of which transport (SCardTransmit)", transport))
        print(summary("  service overhead", overhead))
        print(f"RSS before/after {a.reads} reads          {before / 1024:8.1f} MB -> {after / 1024:.1f} MB "
              f"(growth {(after - before) / 1024:.2f} MB, {elapsed / a.reads * 1000:.0f} ms per read)")


if __name__ == "__main__":
    main()
