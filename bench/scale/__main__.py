"""Command line of the scale harness (see :mod:`bench.scale`).

Public: ``python -m bench.scale --n 1 4 16 [--out DIR] [--fixtures DIR] [--lu-works SLUG…]
[--eu-works SLUG…] [--keep] [--publish] [--no-plot]``; ``--report-only [--publish]`` re-renders
the tables and plot from an existing ``scale.json``.

Internal (started by the harness itself): ``_serve`` (the replay child) and ``_stage NAME``
(one measured stage).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from bench.scale.measure import ROOT


def default_fixtures() -> Path:
    return Path(os.environ.get("LEX_FIXTURES") or ROOT.parent / "shared" / "fixtures")


def main_run(argv: list[str]) -> None:
    from bench.scale import report
    from bench.scale.harness import Options, run_scale

    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[1, 4, 16], help="replica counts (default 1 4 16)")
    parser.add_argument("--out", type=Path, default=Path("bench/out/scale"))
    parser.add_argument("--fixtures", type=Path, default=None, help="default: $LEX_FIXTURES or ../shared/fixtures")
    parser.add_argument("--lu-works", nargs="+", default=None, help="only these Legilux slugs")
    parser.add_argument("--eu-works", nargs="+", default=None, help="only these EUR-Lex slugs")
    parser.add_argument("--keep", action="store_true", help="keep each N's tree, dataset, index and release")
    parser.add_argument("--publish", action="store_true", help="copy the plot and tables into the docs")
    parser.add_argument("--no-plot", dest="plot", action="store_false")
    parser.add_argument("--report-only", action="store_true",
                        help="no run: re-render scale.md and scale.png (and --publish) from --out/scale.json")
    args = parser.parse_args(argv)
    if args.report_only:
        results = report.rerender(args.out.resolve(), draw=args.plot)
        report.print_table(results)
        if args.publish:
            print("published:", ", ".join(report.publish(results, args.out.resolve() / "scale.png", ROOT)))
        return
    fixtures = (args.fixtures or default_fixtures()).resolve()
    if not fixtures.is_dir():
        raise SystemExit(f"fixtures not found at {fixtures} (use --fixtures or LEX_FIXTURES)")
    options = Options(ns=sorted(set(args.n)), out=args.out.resolve(), fixtures=fixtures,
                      works={"lu-legilux": args.lu_works, "eu-eurlex": args.eu_works},
                      keep=args.keep, plot=args.plot)
    results = run_scale(options)
    report.print_table(results)
    if args.publish:
        print("published:", ", ".join(report.publish(results, options.out / "scale.png", ROOT)))


def main_serve(argv: list[str]) -> None:
    from bench.scale.server import serve_main

    parser = argparse.ArgumentParser(prog="python -m bench.scale _serve")
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--served", type=Path, required=True)
    parser.add_argument("--works", default="{}", help="JSON {publisher: [slug…] | null}")
    args = parser.parse_args(argv)
    serve_main(args.base, args.n, args.served, json.loads(args.works))


def main_stage(argv: list[str]) -> None:
    from bench.scale.stages import STAGES, RunDirs, run_stage

    parser = argparse.ArgumentParser(prog="python -m bench.scale _stage")
    parser.add_argument("stage", choices=STAGES)
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--url", default=None)
    parser.add_argument("--n", type=int, default=1)
    args = parser.parse_args(argv)
    facts = run_stage(args.stage, RunDirs(args.run_dir), url=args.url, n=args.n)
    print(json.dumps(facts, sort_keys=True))


def main(argv: list[str]) -> None:
    commands = {"_serve": main_serve, "_stage": main_stage}
    if argv and argv[0] in commands:
        commands[argv[0]](argv[1:])
    else:
        main_run(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
