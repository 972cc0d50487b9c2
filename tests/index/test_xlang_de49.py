"""Issue #15, forty-ninth session (lu49b): German questions on French-only Luxembourg acts — a German word's
umlauts written ``ae``/``oe``/``ue`` and the plural or genitive ``s`` the stemmer leaves read on the lexicon
look-up (:func:`derive.index.xlang.german_spellings`), learned nouns in -orium given their French -oire, and the
reviewed block of Luxembourg's German administrative vocabulary and the act terms' unreached words (ADR 0161)."""

from __future__ import annotations

import json

from derive.index import xlang


def test_umlauts_spelt_with_an_e_meet_the_lexicon() -> None:
    de = xlang.lexicon("de")
    # the normaliser writes "Gebühren" as "gebuhren"; a keyboard without umlauts writes "Gebuehren"
    assert xlang.german_spellings("gebuehren") == ("gebuhren",)
    assert de.lookup("gebuehren", "de") == de.lookup("gebuhren", "de") is not None
    assert de.lookup("aerztliche", "de") == de.lookup("arztliche", "de") is not None
    assert de.lookup("oeffentliche", "de") == de.lookup("offentliche", "de") is not None
    # a diphthong's "ue" or a "qu" is no umlaut: "Steuer", "neue", "Bauer", "Quelle" are left as written
    for word in ("steuer", "neue", "bauer", "quelle", "abenteuer"):
        assert not any("u" * 2 in w or w == word for w in xlang.german_spellings(word))
        assert all("ue" in w for w in xlang.german_spellings(word))


def test_the_plural_or_genitive_s_the_stemmer_leaves_is_read() -> None:
    de = xlang.lexicon("de")
    # "LKWs": Snowball never strips an s after a w; "Rats" is too short to stem
    assert "lkw" in xlang.german_spellings("lkws") and de.lookup("lkws", "de") == de.lookup("lkw", "de")
    assert de.lookup("rats", "de") == de.lookup("rat", "de") is not None
    # so a compound whose head carries it is cut: "Staats·rats"
    assert de.lookup("staatsrats", "de") is not None or xlang.compound_parts("staatsrats", "de") is not None
    # never after e or s ("hohes" is not "Höhe"), never below three letters
    assert xlang.german_spellings("hohes") == ()
    assert xlang.german_spellings("preis") == ()
    assert xlang.german_spellings("abs") == ()
    # the rule is German only
    assert xlang.lexicon("en").lookup("lkws", "en") is None


def test_a_learned_noun_in_orium_is_given_the_french_oire() -> None:
    assert xlang.cognates("observatorium", "de") == ("observatoire",)
    assert xlang.cognates("laboratorien", "de")[0] == "laboratoires"
    held = {"observatoire", "sante"}.__contains__
    found = xlang.translate(["gesundheitsobservatorium"], "de", held=held)
    assert "observatoire" in [t for terms in found.alternatives.values() for t in terms]


def test_the_lu49b_block_is_sourced_and_reaches_its_words() -> None:
    entries = [e for e in json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))["entries"]
               if "(lu49b)" in e["source"]]
    assert len(entries) >= 150
    for entry in entries:
        assert entry["language"] == "de" and entry["terms"]
        assert "[lu-legilux:" in entry["source"]
    de = xlang.lexicon("de")
    assert de.lookup("gewerbegenehmigung", "de") == ("autorisation d etablissement",)
    assert de.lookup("cns", "de") == ("caisse nationale de sante",)
    assert de.lookup("familienzulagen", "de") == ("allocations familiales",)
    # an inflected form meets its entry through the stem
    assert de.lookup("arbeitsuchenden", "de") is not None
    # several-sense nouns and prefixes stay without an entry of their own (ADR 0157)
    for word in ("zulage", "geschaft", "mindest", "sonder", "werk"):
        assert de.lookup(word, "de") is None


def test_a_bound_or_kind_modifier_reaches_a_compound_without_counting() -> None:
    held = lambda w: True  # noqa: E731
    # "Höchst·betrag": the head an entry (counted), the modifier the French of a bound (never counted)
    parts = xlang.reached_parts("hochstbetrag", "de", held)
    assert parts is not None and parts[0][0] == "hochst" and "maximum" in parts[0][1] and parts[0][2] is False
    assert parts[1] == ("betrag", xlang.lexicon("de").lookup("betrag", "de"), True)
    assert xlang.reached_parts("mindestgehalt", "de", held)[0][1][0] == "minimum"
    # only the words the searched text holds
    assert xlang.prefix_terms("mindest", {"minimal"}.__contains__) == ("minimal",)
    # the modifier alone is no entry, and a head nothing reaches is not cut: "Mindest·alter" stays as it is
    assert xlang.lexicon("de").lookup("mindest", "de") is None
    assert xlang.reached_parts("mindestalter", "de", held) is None
    found = xlang.translate(["mindestalter", "kauf", "energydrinks"], "de", held=held)
    assert "mindestalter" in found.terms and "mindest" not in found.alternatives


def test_act_terms_meet_umlauts_typed_with_an_e() -> None:
    from serve.core import actterms

    assert "gebuhren" in actterms.word_forms("gebuehren")
    assert xlang.unspelt_umlauts("steuer") == "steuer" and xlang.unspelt_umlauts("quelle") == "quelle"


def test_a_widened_entry_keeps_its_earlier_french() -> None:
    # the act terms' French says « examen » where the entry said « enquête » only; both stay OR-alternatives
    entries = [e for e in json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))["entries"]
               if "(lu49b widening)" in e["source"]]
    assert len(entries) >= 30
    de = xlang.lexicon("de")
    for entry in entries:
        found = de.lookup(xlang.fold(entry["word"].lower()).translate(str.maketrans("äöü", "aou")), "de")
        assert found is not None and len(found) >= 2
    assert {"enquete", "examen"} <= set(de.lookup("untersuchung", "de") or ())
    assert {"charges", "frais"} <= set(de.lookup("kosten", "de") or ())
