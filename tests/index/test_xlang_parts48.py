"""Issue #15, forty-eighth session (lu48b): German compounds whose parts only a held cognate or a French
spelling reaches (:func:`derive.index.xlang.reached_parts`), and the reviewed entries for the most frequent
pieces of the German act terms that no tier reached (ADR 0157)."""

from __future__ import annotations

import json

from derive.index import xlang


def test_a_compound_whose_head_french_spells_alike_is_searched_as_its_parts() -> None:
    held = {"pension", "fonctionnaires", "statut"}.__contains__
    # "Beamten·pension": the modifier is an entry, the head a French word the text holds as it is spelt
    assert xlang.compound_parts("beamtenpension", "de") is None  # the lexicon alone cannot cut it
    assert xlang.reached_parts("beamtenpension", "de", held) == (
        ("beamt", xlang.lexicon("de").lookup("beamt", "de"), True), ("pension", (), False))
    found = xlang.translate(["beamtenpension", "staat"], "de", held=held)
    assert found.terms == ["beamt", "pension", "staat"]
    assert found.used[0]["source"] == "compound parts beamt+pension"
    # the French spelling must be held by the searched text: without it nothing is cut
    assert xlang.reached_parts("beamtenpension", "de", lambda w: False) is None
    # another language is never cut
    assert xlang.reached_parts("beamtenpension", "en", held) is None


def test_a_dictionary_sense_never_reaches_a_compound_part() -> None:
    # "Leih·mutterschaft": « prêter » is the dictionary's sense of the fragment "leih", not the compound's
    # (surrogacy); a compound so cut answered judged negatives ("Weihnachts·markt" « noël » + « marché »)
    everything = lambda w: True  # noqa: E731
    assert xlang.dictionary("de").lookup("leih", "de") is not None
    assert xlang.reached_parts("leihmutterschaft", "de", everything) is None
    assert xlang.reached_parts("weihnachtsmarkt", "de", everything) is None


def test_a_short_word_french_spells_alike_is_no_part() -> None:
    # "rat" (council) or "art" (kind) are French words in other senses: a French spelling counts from
    # FRENCH_PART_MIN letters only
    assert xlang.FRENCH_PART_MIN == 5
    assert xlang.part_terms("pension", "de", {"pension"}.__contains__) == ((), False)
    assert xlang.part_terms("test", "de", {"test"}.__contains__) == (xlang.lexicon("de").lookup("test", "de"), True)
    assert xlang.part_terms("zorblax", "de", lambda w: True) is None


def test_the_frequent_act_term_pieces_have_entries_and_cut_their_compounds() -> None:
    entries = [e for e in json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))["entries"]
               if "(lu48b)" in e["source"]]
    assert len(entries) >= 30
    for entry in entries:
        assert entry["language"] == "de" and entry["terms"]
        assert "[lu-legilux:" in entry["source"] or "[eu-eurlex:" in entry["source"]
    de = xlang.lexicon("de")
    assert de.lookup("risiko", "de") == ("risque",) and de.lookup("kammer", "de") == ("chambre",)
    # compounds of them are now cut by the lexicon alone
    assert xlang.compound_parts("handwerkskammer", "de") == ("handwerk", "kammer")
    assert xlang.compound_parts("kreditrisiko", "de") == ("kredit", "risiko")


def test_a_german_word_in_ar_is_given_the_french_aire() -> None:
    # "Notar" « notaire », "Honorare" « honoraires », "konsular" « consulaire » (k read as c): a spelling the
    # searched text must hold, as every cognate; a word in -ar no French text holds proposes nothing held
    assert xlang.cognates("notar", "de") == ("notaire",)
    assert "honoraires" in xlang.cognates("honorare", "de")
    assert xlang.cognates("konsular", "de")[0] == "consulaire"
    held = {"consulaire", "redevances", "frais"}.__contains__
    found = xlang.translate(["konsulargebuhren"], "de", held=held)
    assert found.terms == ["konsular", "gebuhren"] and found.alternatives["konsular"] == ["consulaire"]
    assert "januaire" not in xlang.translate(["januar"], "de", held=held).alternatives.get("januar", [])
