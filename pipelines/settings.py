"""Where the pipeline reads and writes, and which publisher source it uses.

The environment — ``sample`` (the bundled demonstration corpus served by the replay publisher
on loopback), ``replay`` (a replay publisher already running at ``replay_url``), ``published``
(exported ``lex-corpus-<publisher>`` trees imported as they are from ``published_dir``: the test
fixtures or the two full corpora; ``fixtures`` is the older name of the same source) or ``live``
(the official endpoints) — is chosen here and nowhere else.
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import Any

import dagster as dg

from legal.publishers import BUILT_IN

#: the partitions: every built-in publisher of the registry, in its order (static: Dagster partitions
#: are declared once; a new publisher is added to ``legal.publishers.BUILT_IN`` and appears here)
PUBLISHERS = tuple(facts.id for facts in BUILT_IN)
#: the source that imports exported corpus trees, and its older name (kept working)
PUBLISHED_SOURCES = ("published", "fixtures")
SHARDS = 4  # static shards of works per publisher: bounded, never one partition per work


class LexSettings(dg.ConfigurableResource):  # type: ignore[misc, type-arg]  # dagster ships ConfigurableResource unparametrised
    """Locations and the publisher source of one deployment."""

    workdir: str = "var/pipeline"
    source: str = "sample"  # sample | replay | published (alias: fixtures) | live
    replay_url: str = ""
    fixtures_dir: str = ""  # the directory of ``published``: holds lex-corpus-<publisher>/ (LEX_PUBLISHED_DIR)
    datasets_dir: str = ""  # empty: <workdir>/derived; the per-publisher datasets go to <datasets_dir>/<publisher>
    evidence_dir: str = ""  # empty: <tree>/evidence; set to a shared filesystem path at scale
    signing_key: str = ""  # PEM; passphrase from LEX_SIGNING_PASSPHRASE
    eu_scope: str = ""  # EUR-Lex scope file (lex-eu-scope/1); empty: the bundled reviewed scope
    judgments: str = ""  # retrieval judgments for the release gate; empty: chosen by source
    gate_policy: str = ""  # gate policy file {"thresholds": {...}} for the release gate; empty: the defaults
    built_at: str = ""  # the index build instant (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ); empty: today 00:00Z
    allow_withdrawals: int = -1  # versions one ingest may withdraw past the 5 % guard; -1: none
    revalidate_weekdays: str = ""  # e.g. "sun" or "mon,thu": ingests on those UTC days revalidate held bodies
    rehash: bool = False  # hash every stage file even when its size, time and inode are those recorded (LEX_REHASH=1)

    def ingest_options(self, today: _dt.date | None = None) -> dict[str, Any]:
        """The withdrawal allowance and whether today's ingest revalidates held bodies."""
        day = (today or _dt.datetime.now(_dt.UTC).date()).strftime("%a").lower()
        days = {d.strip().lower()[:3] for d in self.revalidate_weekdays.split(",") if d.strip()}
        return {"allow_withdrawals": self.allow_withdrawals if self.allow_withdrawals >= 0 else None,
                "revalidate": day in days or "all" in days}

    def built_at_stamp(self) -> str:
        """The build instant as ``YYYY-MM-DDTHH:MM:SSZ``: an input, so that rebuilding the same
        inputs on the same day gives byte-identical indexes."""
        value = self.built_at or _dt.datetime.now(_dt.UTC).date().isoformat()
        return value if "T" in value else f"{value}T00:00:00Z"

    @property
    def published(self) -> bool:
        """Whether the source imports published corpus trees (``published``, or its older name ``fixtures``)."""
        return self.source in PUBLISHED_SOURCES

    @property
    def root(self) -> Path:
        return Path(self.workdir).resolve()

    def scope_file(self, publisher: str) -> str | None:
        """The configured scope file of ``publisher`` (only EUR-Lex takes one today: ``eu_scope``)."""
        files = {"eu-eurlex": self.eu_scope}
        return files.get(str(publisher)) or None

    def tree(self, publisher: str) -> Path:
        return self.root / "trees" / publisher

    def derived(self, publisher: str) -> Path:
        base = Path(self.datasets_dir).resolve() if self.datasets_dir else self.root / "derived"
        return base / publisher

    def shard(self, publisher: str, index: int, shards: int = SHARDS) -> Path:
        """The output of shard ``index`` of ``shards`` of a publisher's dataset build."""
        return self.root / "shards" / publisher / f"{index}-of-{shards}"

    def indexes(self) -> Path:
        return self.root / "indexes"

    def release_dir(self) -> Path:
        return self.root / "release"


def settings_from_env() -> LexSettings:
    """Settings from ``LEX_*`` environment variables (used by ``workspace.yaml`` deployments)."""
    return LexSettings(
        workdir=os.environ.get("LEX_WORKDIR", "var/pipeline"),
        source=os.environ.get("LEX_SOURCE", "sample"),
        replay_url=os.environ.get("LEX_REPLAY_URL", ""),
        fixtures_dir=os.environ.get("LEX_PUBLISHED_DIR", "") or os.environ.get("LEX_FIXTURES", ""),
        datasets_dir=os.environ.get("LEX_DATASETS_DIR", ""),
        evidence_dir=os.environ.get("LEX_EVIDENCE_DIR", ""),
        signing_key=os.environ.get("LEX_SIGNING_KEY", ""),
        eu_scope=os.environ.get("LEX_EU_SCOPE", ""),
        judgments=os.environ.get("LEX_JUDGMENTS", ""),
        allow_withdrawals=int(os.environ.get("LEX_ALLOW_WITHDRAWALS", "-1")),
        revalidate_weekdays=os.environ.get("LEX_REVALIDATE_WEEKDAYS", ""),
        gate_policy=os.environ.get("LEX_GATE_POLICY", ""),
        built_at=os.environ.get("LEX_BUILT_AT", ""),
        rehash=os.environ.get("LEX_REHASH", "") not in ("", "0"),
    )
