"""The publisher registry: built-ins, a toy third publisher, and unknown ids refused everywhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from corpus_tree.importer import import_published
from legal.errors import IdentityError
from legal.identifiers import url_candidates
from legal.ids import Publisher, WorkId, WorkSlug
from legal.outcomes import TimelineSemantics, ValidToConvention
from legal.publishers import EURLEX, LEGILUX, IdentifierRules, PublisherFacts, registry
from legal.validity import convention_of, semantics_of
from publishers import adapter_for
from publishers.registry import (
    PublisherPlugin,
    load_scope,
    plugin_for,
    register_plugin,
    unregister_plugin,
)

TOY = PublisherFacts(
    id="xx-toy", jurisdiction="XX", valid_to_convention=ValidToConvention.INCLUSIVE,
    timeline_semantics=TimelineSemantics.PUBLISHER_APPLICABILITY, name="Toy (XX)", authority="Toy office",
    identifiers=IdentifierRules(
        work_slug=lambda uri: uri.rsplit("/", 1)[-1].lower(),
        url_slugs=lambda url: [url.rsplit("/", 1)[-1].lower()] if url.startswith("https://toy.example/act/") else [],
    ),
    profiles=("akn-lu/1",),
)


@pytest.fixture
def toy() -> Iterator[PublisherFacts]:
    register_plugin(PublisherPlugin(facts=TOY, make_adapter=lambda client, url, policy, extra: ("toy-adapter", url)))  # type: ignore[arg-type,return-value]
    yield TOY
    unregister_plugin(TOY.id)


def test_built_ins_are_registered_in_order() -> None:
    assert [f.id for f in registry().all()][:2] == ["lu-legilux", "eu-eurlex"]
    assert [p.value for p in Publisher][:2] == ["lu-legilux", "eu-eurlex"]
    assert Publisher.parse("EU-EURLEX") is Publisher.EURLEX
    assert convention_of(Publisher.LEGILUX) is ValidToConvention.EXCLUSIVE
    assert semantics_of(Publisher.EURLEX) is TimelineSemantics.OFFICIAL_CONSOLIDATION_STATE
    assert plugin_for("lu-legilux").facts is LEGILUX and plugin_for("eu-eurlex").facts is EURLEX


def test_a_toy_publisher_is_known_everywhere_once_registered(toy: PublisherFacts) -> None:
    pub = Publisher.parse("xx-toy")
    assert pub.jurisdiction == "XX" and pub in list(Publisher)
    assert str(WorkId.parse("xx-toy:act-1")) == "xx-toy:act-1"
    assert convention_of(pub) is ValidToConvention.INCLUSIVE
    assert semantics_of(pub) is TimelineSemantics.PUBLISHER_APPLICABILITY
    assert WorkSlug.of_work(pub, "https://toy.example/act/ACT-1").value == "act-1"
    assert url_candidates("https://toy.example/act/ACT-1") == [("xx-toy", "act-1")]
    with httpx.Client() as client:
        assert adapter_for("xx-toy", client, replay_url="http://127.0.0.1:1") == ("toy-adapter", "http://127.0.0.1:1")
    assert load_scope("xx-toy", None) is None


def test_the_toy_is_gone_after_unregistering(toy: PublisherFacts) -> None:
    unregister_plugin(toy.id)
    with pytest.raises(IdentityError) as err:
        Publisher.parse("xx-toy")
    assert err.value.code == "unknown_publisher"
    register_plugin(PublisherPlugin(facts=TOY, make_adapter=lambda *a: None))  # type: ignore[arg-type,return-value]


def test_registering_other_facts_under_a_known_id_is_refused() -> None:
    other = PublisherFacts(**{**{f: getattr(LEGILUX, f) for f in LEGILUX.__slots__}, "name": "Other"})
    with pytest.raises(IdentityError) as err:
        registry().register(other)
    assert err.value.code == "publisher_already_registered"


def _unknown(call: Any) -> str:
    with pytest.raises(IdentityError) as err:
        call()
    return err.value.code


def test_unknown_publisher_is_refused_at_every_entry_point(tmp_path: Path) -> None:
    assert _unknown(lambda: Publisher.parse("xx-nobody")) == "unknown_publisher"
    assert _unknown(lambda: WorkId.parse("xx-nobody:act-1")) == "unknown_publisher"
    assert _unknown(lambda: convention_of("xx-nobody")) == "unknown_publisher"
    assert _unknown(lambda: semantics_of("xx-nobody")) == "unknown_publisher"
    assert _unknown(lambda: plugin_for("xx-nobody")) == "unknown_publisher"
    with httpx.Client() as client:
        assert _unknown(lambda: adapter_for("xx-nobody", client)) == "unknown_publisher"
    source = tmp_path / "published"
    (source / "works").mkdir(parents=True)
    manifest = {"schema": "lex-corpus/4", "publisher": {"id": "xx-nobody"}}
    (source / "manifest.json").write_text(json.dumps(manifest))
    assert _unknown(lambda: import_published(source, tmp_path / "tree")) == "unknown_publisher"
