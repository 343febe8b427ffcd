#!/usr/bin/env python3
"""Soak load for basel (issue #14): mixed traffic at a fixed rate.

Drives a running basel (REST and MCP) with lookups, lists, the changes feed,
classifications, MCP tool calls (streamable HTTP, one session per lane),
repeat registrations and steward writes. First it measures the peak rate
(closed loop, CONCURRENCY lanes, PEAK_SECONDS), then sends the same mix at
RATE_SHARE of that peak, open loop (each request has its scheduled time;
latency is counted from it, so a server that falls behind shows it), for
DURATION seconds. It samples the server's RSS every 5 s and prints one JSON
summary: peak, rate, requests, errors by kind, p50/p99 per kind and overall,
RSS after warm-up and at the end, and growth.

Usage: soak.py BASE MCP_BASE PID KEY STEWARD_TOKEN (see scripts/soak).
Needs httpx (scripts/requirements-soak.txt).
"""

import asyncio
import itertools
import json
import os
import random
import sys
import time

import httpx

DURATION = float(os.environ.get("DURATION", "600"))
WARMUP = float(os.environ.get("WARMUP", "60"))
PEAK_SECONDS = float(os.environ.get("PEAK_SECONDS", "20"))
CONCURRENCY = int(os.environ.get("CONCURRENCY", "32"))
RATE_SHARE = float(os.environ.get("RATE_SHARE", "0.5"))

# Basel Parties only (every one has a record in the seeded directory).
COUNTRIES = ["DE", "FR", "NG", "KR", "BR", "IN", "JP", "ZA", "MX", "GB", "IT", "ES", "CN", "AU", "CH"]
DESCRIPTIONS = [
    "Used lead-acid starter batteries from scrapped cars, drained, on pallets",
    "Shredded printed circuit boards from computers, no batteries",
    "Waste mineral oil from engines, contaminated with PCB below 50 mg/kg",
    "Clean sorted PET bottle flakes for recycling",
    "Fly ash from municipal solid waste incineration",
]
# Share of each kind in the mix (steward writes are serialised on one lane).
MIX = [
    ("lookup", 40), ("list", 12), ("changes", 5), ("classify", 15),
    ("mcp", 18), ("register", 5), ("steward", 5),
]


class Load:
    def __init__(self, base, mcp, key, token):
        self.base, self.mcp, self.key, self.token = base, mcp, key, token
        limits = httpx.Limits(max_connections=CONCURRENCY + 8, max_keepalive_connections=CONCURRENCY + 8)
        self.http = httpx.AsyncClient(timeout=15.0, limits=limits)
        self.sessions = []
        self.write_lock = asyncio.Lock()
        self.counter = itertools.count()
        self.after = 0

    async def open_sessions(self, n):
        for _ in range(n):
            body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "soak", "version": "1"}}}
            r = await self.http.post(f"{self.mcp}/mcp", json=body, headers=self.mcp_headers())
            r.raise_for_status()
            sid = r.headers["mcp-session-id"]
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await self.http.post(f"{self.mcp}/mcp", json=note, headers=self.mcp_headers(sid))
            self.sessions.append(sid)

    def mcp_headers(self, sid=None):
        h = {"x-api-key": self.key, "accept": "application/json, text/event-stream",
             "content-type": "application/json"}
        if sid:
            h["mcp-session-id"] = sid
            h["mcp-protocol-version"] = "2025-06-18"
        return h

    async def one(self, kind):
        """Sends one request of `kind`; returns whether it succeeded."""
        n = next(self.counter)
        key = {"x-api-key": self.key}
        if kind == "lookup":
            r = await self.http.get(f"{self.base}/api/v1/ca/{random.choice(COUNTRIES)}", headers=key)
        elif kind == "list":
            r = await self.http.get(f"{self.base}/api/v1/ca?page={1 + n % 4}&perPage=50", headers=key)
        elif kind == "changes":
            r = await self.http.get(f"{self.base}/api/v1/changes?after={self.after}&limit=100", headers=key)
            if r.status_code == 200:
                self.after = max(self.after, r.json().get("next", 0) - 500)
        elif kind == "classify":
            body = {"description": random.choice(DESCRIPTIONS), "origin": "DE", "destination": "NG"}
            r = await self.http.post(f"{self.base}/api/v1/classify", json=body, headers=key)
        elif kind == "mcp":
            sid = self.sessions[n % len(self.sessions)]
            call = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                    "params": {"name": "get_competent_authority",
                               "arguments": {"country_code": random.choice(COUNTRIES)}}}
            r = await self.http.post(f"{self.mcp}/mcp", json=call, headers=self.mcp_headers(sid))
            if r.status_code == 200 and ('"isError":true' in r.text or '"error"' in r.text[:200]):
                return False
        elif kind == "register":
            # Repeat registrations of a fixed set of addresses (new ones are
            # rate-limited per client address by design).
            r = await self.http.post(f"{self.base}/register", json={"email": f"soak-{n % 50}@example.org"})
        elif kind == "steward":
            async with self.write_lock:
                cc = COUNTRIES[n % len(COUNTRIES)]
                body = {"verified": False, "checked_on": time.strftime("%Y-%m-%d", time.gmtime()),
                        "method": "email", "source": f"soak check {n}", "note": None}
                r = await self.http.post(f"{self.base}/api/v1/ca/{cc}/verifications", json=body,
                                         headers={"authorization": f"Bearer {self.token}"})
        else:
            raise ValueError(kind)
        return 200 <= r.status_code < 300


def pick():
    total = sum(w for _, w in MIX)
    x = random.uniform(0, total)
    for kind, w in MIX:
        x -= w
        if x <= 0:
            return kind
    return MIX[0][0]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


async def measure_peak(load):
    done = 0
    stop = time.monotonic() + PEAK_SECONDS

    async def lane():
        nonlocal done
        while time.monotonic() < stop:
            try:
                await load.one(pick())
            except httpx.HTTPError:
                pass
            done += 1

    await asyncio.gather(*(lane() for _ in range(CONCURRENCY)))
    return done / PEAK_SECONDS


async def soak(load, rate, pid):
    stats = {kind: {"ok": 0, "errors": 0, "latencies": []} for kind, _ in MIX}
    rss = []
    queue = asyncio.Queue()
    start = time.monotonic()
    end = start + DURATION

    async def schedule():
        n = 0
        while True:
            due = start + n / rate
            if due >= end:
                break
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            queue.put_nowait((due, pick()))
            n += 1
        for _ in range(CONCURRENCY):
            queue.put_nowait(None)

    async def lane():
        while True:
            item = await queue.get()
            if item is None:
                return
            due, kind = item
            try:
                ok = await load.one(kind)
            except httpx.HTTPError:
                ok = False
            s = stats[kind]
            s["ok" if ok else "errors"] += 1
            if time.monotonic() - start >= WARMUP:
                s["latencies"].append(time.monotonic() - due)

    async def sample():
        while time.monotonic() < end:
            rss.append((time.monotonic() - start, rss_kib(pid)))
            await asyncio.sleep(5)

    await asyncio.gather(schedule(), sample(), *(lane() for _ in range(CONCURRENCY)))
    return stats, rss


async def main():
    base, mcp, pid, key, token = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    load = Load(base, mcp, key, token)
    await load.open_sessions(8)
    for n in range(50):
        await load.http.post(f"{base}/register", json={"email": f"soak-{n}@example.org"})
    peak = await measure_peak(load)
    rate = max(1.0, peak * RATE_SHARE)
    print(f"peak {peak:.0f} req/s (closed loop, {CONCURRENCY} lanes); soaking at {rate:.0f} req/s for {DURATION:.0f} s", file=sys.stderr, flush=True)
    stats, rss = await soak(load, rate, pid)
    after_warmup = next((kib for t, kib in rss if t >= WARMUP), rss[0][1] if rss else 0)
    final = rss[-1][1] if rss else 0
    everything = [x for s in stats.values() for x in s["latencies"]]
    summary = {
        "peak_rps": round(peak, 1),
        "rate_rps": round(rate, 1),
        "duration_s": DURATION,
        "warmup_s": WARMUP,
        "requests": sum(s["ok"] + s["errors"] for s in stats.values()),
        "errors": sum(s["errors"] for s in stats.values()),
        "p50_ms": round(1000 * (percentile(everything, 0.50) or 0), 2),
        "p99_ms": round(1000 * (percentile(everything, 0.99) or 0), 2),
        "by_kind": {
            kind: {"ok": s["ok"], "errors": s["errors"],
                   "p50_ms": round(1000 * (percentile(s["latencies"], 0.50) or 0), 2),
                   "p99_ms": round(1000 * (percentile(s["latencies"], 0.99) or 0), 2)}
            for kind, s in stats.items()
        },
        "rss_kib_after_warmup": after_warmup,
        "rss_kib_end": final,
        "rss_kib_max": max((kib for _, kib in rss), default=0),
        "rss_growth_pct": round(100 * (final - after_warmup) / after_warmup, 2) if after_warmup else None,
    }
    await load.http.aclose()
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
