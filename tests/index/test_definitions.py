"""Issue #15, twenty-third session: the definitions bridge (:mod:`derive.index.definitions`, ADR 0040) —
definitions read out of provision texts, mined with their provenance, and the term a question's words describe."""

from __future__ import annotations

from derive.index import definitions


def test_english_and_french_definitions_are_read_with_their_bodies() -> None:
    en = definitions.extract("For the purposes of this Directive: (a) ‘consumer’ means any natural person who is "
                             "acting for purposes outside his trade, business, craft or profession;", "en")
    assert [t for t, _ in en] == ["consumer"]
    assert {"natur", "person", "trade", "busi"} <= set(en[0][1])
    fr = definitions.extract("Au sens de la présente loi, on entend par : 1° « logement abordable » : tout logement "
                             "loué à un ménage dont le revenu ne dépasse pas un plafond;", "fr")
    assert [t for t, _ in fr] == ["logement abordable"]
    assert "menag" in fr[0][1] and "logement" not in fr[0][1]  # the term's own words are not its body


def test_a_reference_or_a_short_body_is_no_definition() -> None:
    assert definitions.extract("‘trader’ means as defined in Directive 2011/83/EU for persons selling goods "
                               "professionally online;", "en") == []
    assert definitions.extract("‘day’ means a calendar day;", "en") == []
    assert definitions.extract("« jour » : un jour calendrier;", "de") == []


def test_mining_counts_a_definition_once_and_its_works() -> None:
    text = "‘consumer’ means any natural person who is acting for purposes outside his trade, business or craft;"
    mined = definitions.mine([("w1#art_2", "en", text), ("w1#art_2", "en", text), ("w2#art_3", "en", text)])
    assert len(mined) == 1 and mined[0].example == "w1#art_2" and mined[0].works == 2


def test_the_bridge_takes_the_definition_the_question_describes(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import json

    rows = [("w0#art_2", "en", "‘consumer’ means any natural person buying goods for private household use;")]
    rows += [(f"f{i}#art_1", "en", f"‘filler{chr(97 + i)}’ means a widget gadget {chr(97 + i)}thing of some "
              "apparatus kind;") for i in range(20)]
    mined = definitions.mine(rows)
    path = tmp_path / "definitions_mined.json"
    path.write_text(json.dumps({"definitions": [d.to_dict() for d in mined]}), encoding="utf-8")
    monkeypatch.setattr(definitions, "MINED_PATH", path)
    monkeypatch.setattr(definitions, "MIN_SCORE", 5.0)
    monkeypatch.setattr(definitions, "MAX_STEM_SHARE", 0.5)
    definitions.load.cache_clear()
    try:
        found = definitions.bridge(["buying", "private", "household", "goods"], "en")
        assert found is not None and found.term == "consumer" and found.example == "w0#art_2"
        assert set(found.words) == {"buying", "private", "household", "goods"}
        assert definitions.bridge(["consumer", "private", "household"], "en") is None  # the term is asked already
        assert definitions.bridge(["buying", "private", "household"], "de") is None  # no definition in that language
        assert definitions.bridge(["widget", "gadget"], "en") is None  # words every filler holds: no evidence
    finally:
        definitions.load.cache_clear()
