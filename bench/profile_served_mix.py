"""Profile: the served mix of ``bench_serve_full`` replayed in process through the ASGI app.

Builds the app as ``lex serve`` does (the assistant's extension included, rate limits off), mounts
``--index-dir`` (unsigned), and sends the served mix (:func:`bench.bench_serve_full.served_mix`)
straight to the ASGI callable, one request at a time, ``--passes`` times after one warm pass. It
prints the CPU per request by kind (API operation, page, health) — everything the process spent
on it: routing, middleware, validation, admission, the worker thread, the core, encoding,
rendering — without uvicorn, sockets or a client. With ``--profile FILE`` the core calls run
inline on the event loop's thread (so cProfile sees them) and the cProfile is written to FILE.

Usage::

    python -m bench.profile_served_mix --index-dir DIR [--passes 3] [--answer-cache MiB]
        [--mix-calls 8] [--mix-rounds 1] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import cProfile
import json
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.bench_serve_full import MIX_CALLS, MixItem, round_searches, served_mix, workload


class _Inline:
    """An executor that runs each call at once on the caller's thread (for cProfile)."""

    def submit(self, function: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        try:
            future.set_result(function(*args))
        except BaseException as error:  # handed to the awaiting request, as the pool would
            future.set_exception(error)
        return future

    def shutdown(self, **_: Any) -> None:
        pass


def _scope(method: str, path: str, body: bytes | None) -> dict[str, Any]:
    bare, _, query = path.partition("?")
    headers = [(b"host", b"127.0.0.1:8080"), (b"accept", b"application/json")]
    if body is not None:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": bare, "raw_path": bare.encode(), "query_string": query.encode(),
            "root_path": "", "headers": headers, "client": ("127.0.0.1", 5555), "server": ("127.0.0.1", 8080)}


async def _request(app: Any, method: str, path: str, arguments: dict[str, Any] | None) -> int:
    body = json.dumps(arguments).encode() if arguments is not None else None
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body or b"", "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects
        raise AssertionError

    status = [0]

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status[0] = int(message["status"])

    await app(_scope(method, "/" + path, body), receive, send)
    return status[0]


def replay(app: Any, mix: list[MixItem], passes: int,
           profile: cProfile.Profile | None = None) -> tuple[dict[str, list[float]], dict[str, int]]:
    """CPU seconds of each request by kind over ``passes`` of ``mix``, and the non-200 counts."""
    cpu: dict[str, list[float]] = defaultdict(list)
    refused: dict[str, int] = defaultdict(int)

    async def run() -> None:
        for _ in range(passes):
            for kind, method, path, arguments in mix:
                start = time.process_time()
                if profile is not None:
                    profile.enable()
                status = await _request(app, method, path, arguments)
                if profile is not None:
                    profile.disable()
                cpu[kind].append(time.process_time() - start)
                if status != 200:
                    refused[f"{kind} {status}"] += 1

    asyncio.run(run())
    return dict(cpu), dict(refused)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--mix-calls", type=int, default=MIX_CALLS)
    parser.add_argument("--mix-rounds", type=int, default=1, help="Rounds of the mix (bench_serve_full --mix-rounds).")
    parser.add_argument("--answer-cache", type=float, default=0.0, help="MiB of kept answers (0: none, every call runs the core).")
    parser.add_argument("--profile", type=Path, default=None, help="Write a cProfile of the replay here.")
    args = parser.parse_args(argv)

    from cli.serve import assistant_extension
    from serve.admission import AdmissionLimits
    from serve.app import AppSettings, create_app, new_state
    from serve.mount import MountConfig

    index_dir = args.index_dir.resolve()
    ops = workload(index_dir, args.seed, 200)
    if args.mix_rounds > 1:
        ops = round_searches(index_dir, args.seed, ops)
    mix = served_mix(ops, args.mix_calls, args.mix_rounds)
    limits = AdmissionLimits(executing=2, client_per_minute=0, global_per_minute=0)
    state = new_state(MountConfig(index_dir=index_dir, unsigned_dev=True), limits,
                      answer_cache=int(args.answer_cache * (1 << 20)))
    app = create_app(state, AppSettings(limits=limits, mount_on_startup=False), extensions=(assistant_extension(),))
    state.mount()
    if args.profile is not None:
        state._pool = _Inline()  # type: ignore[assignment]
    replay(app, mix, 1)  # warm: the page cache, the core's memories, the answer cache if any
    profile = cProfile.Profile() if args.profile is not None else None
    started = time.process_time()
    cpu, refused = replay(app, mix, args.passes, profile)
    total = time.process_time() - started
    count = sum(len(v) for v in cpu.values())
    print(f"{count} requests, {total:.2f} CPU-s, {total * 1000 / max(1, count):.2f} ms per request; not 200: {refused}")
    print("| kind | requests | CPU ms mean | share of CPU |\n|---|---:|---:|---:|")
    for kind, values in sorted(cpu.items()):
        print(f"| {kind} | {len(values)} | {sum(values) * 1000 / len(values):.2f} | {sum(values) * 100 / total:.1f} % |")
    if profile is not None:
        profile.dump_stats(str(args.profile))
        print(f"cProfile written to {args.profile}")
    state.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
