"""Issue #15, fortieth session (dict40): the cross-language lexicon's dictionary tier (ADR 0123).

``scripts/dict_xlang.py`` reads the FreeDict German–French and English–French dictionaries (dictd form)
and keeps a pair only when it is useful and safe; ``derive/index/xlang_dict.json`` is its committed
output, read by :func:`derive.index.xlang.dictionary` and asked by :func:`derive.index.xlang.translate`
only for a word the reviewed and mined lexicon neither translates nor cuts as a compound. The entries
below are the dictionaries' own text (FreeDict+WikDict deu-fra 2022.11.18, FreeDict eng-fra 0.1.6)."""

from __future__ import annotations

import gzip
import tracemalloc
from collections import Counter
from pathlib import Path

from derive.index import xlang
from tests.scripts_loader import load_script

dict_xlang = load_script("dict_xlang")

# the dictionaries' entries as dictd stores them (headword line, then senses and German glosses)
KUENDIGUNG = ("Kündigung /ˈkʏndɪɡʊŋ/ <n, fem>\n1. résiliation\nRecht: einseitige, in die Zukunft wirkende "
              "Beendigung eines Vertragsverhältnisses\n2. licenciement\nEntlassung aus einem Arbeitsverhältnis\n")
MINDESTLOHN = ("Mindestlohn /ˈmɪndəstˌloːn/ <n, masc>\nsalaire minimum\nder geringste finanzielle Betrag, der von "
               "Arbeitgebern an Beschäftigte gezahlt werden darf\n")
MINE = ("Mine /ˈmiːnə/ <n, fem>\n1. mine 2.\nBergwerk, Stollen\n 3.\nSprengkörper (Waffe)\n2. mine, cartouche, "
        "mine de crayon\nstabförmiger Teil eines Schreibgerätes, der den Schreibstoff enthält\n")
RAHM = "Rahm /ʁaːm/ <n, masc>\ncrème\n"
RAHMEN = "Rahmen /ˈʁaːmən/ <n, masc>\n1. chassis, cadre\nEinfassung\n2. cadre\nUmfeld\n"
WAGE = "wage /weidʒ/\nappointements, gaine, salaire\n"
ELEVATOR = "elevator /eləveitər/\nascenseur\n"


def test_an_index_number_is_read_in_dictd_base64() -> None:
    assert dict_xlang.number("A") == 0
    assert dict_xlang.number("B") == 1
    assert dict_xlang.number("BA") == 64
    assert dict_xlang.number("bWIQ") == ((27 * 64 + 22) * 64 + 8) * 64 + 16


def test_an_entry_is_its_headword_part_of_speech_and_senses() -> None:
    entry = dict_xlang.parse_entry(KUENDIGUNG)
    assert entry == dict_xlang.Entry("Kündigung", "n", (("résiliation",), ("licenciement",)))
    # one unnumbered sense; the German gloss is not a sense
    assert dict_xlang.parse_entry(MINDESTLOHN).senses == (("salaire minimum",),)
    # a broken sense line keeps its terms before the stray number, a bare number is no sense
    assert dict_xlang.parse_entry(MINE).senses == (("mine",), ("mine", "cartouche", "mine de crayon"))
    # the English dictionary marks no part of speech
    assert dict_xlang.parse_entry(WAGE) == dict_xlang.Entry("wage", None, (("appointements", "gaine", "salaire"),))
    assert dict_xlang.parse_entry("lonely headword\n") is None


def test_the_dictionary_is_read_through_its_index(tmp_path: Path) -> None:
    header = "00-database-info\nFreeDict test\n"
    text = header + KUENDIGUNG + MINDESTLOHN
    data = text.encode("utf-8")
    (tmp_path / "t.dict.dz").write_bytes(gzip.compress(data))
    starts = [0, len(header.encode()), len((header + KUENDIGUNG).encode())]

    def digits(n: int) -> str:
        out = ""
        while True:
            out = dict_xlang.B64[n % 64] + out
            n //= 64
            if not n:
                return out
    lines = [f"00databaseinfo\t{digits(0)}\t{digits(starts[1])}",
             f"Kündigung\t{digits(starts[1])}\t{digits(starts[2] - starts[1])}",
             f"Mindestlohn\t{digits(starts[2])}\t{digits(len(data) - starts[2])}"]
    (tmp_path / "t.index").write_text("\n".join(lines) + "\n", encoding="utf-8")
    entries = list(dict_xlang.read_dictionary(tmp_path / "t.index", tmp_path / "t.dict.dz"))
    assert [e.headword for e in entries] == ["Kündigung", "Mindestlohn"]


def test_candidate_terms_follow_the_senses_or_the_corpus() -> None:
    senses = [("avoué", "remplaçant"), ("représentant",)]
    # the German dictionary's order: each sense's first term, then the first sense's others
    assert dict_xlang.candidate_terms(senses, ordered=True) == ["avoue", "representant", "remplacant"]
    # a term of function words only, a placeholder: never a term
    assert dict_xlang.candidate_terms([("par là", "que", "qqch faire", "lieu")], ordered=False) == ["lieu"]


def _select(entries: list[str], language: str, held: dict[str, int], french: dict[str, int] | None = None,
            ordered: bool = True) -> tuple[dict[str, list[str]], Counter[str]]:
    parsed = [e for e in (dict_xlang.parse_entry(t) for t in entries) if e is not None]
    kept, counts = dict_xlang.select(parsed, language, lambda t: held.get(t, 0), lambda w: (french or {}).get(w, 0),
                                     ordered)
    return {str(k["word"]): list(k["terms"]) for k in kept}, counts  # type: ignore[call-overload]


def test_the_filters_keep_a_useful_safe_pair() -> None:
    held = {"salaire minimum": 120, "cage": 40, "ascenseur": 30, "appointements": 12, "salaire": 900,
            "resiliation": 500, "licenciement": 300, "creme": 20, "chassis": 8, "cadre": 9000}
    kept, counts = _select([MINDESTLOHN, KUENDIGUNG, RAHM, RAHMEN, "Käfig /ˈkɛːfɪç/ <n, masc>\ncage\n",
                            "Spatz /ʃpats/ <n, masc>\nmoineau\n", "zwecks /tsvɛks/ <preposition>\nen vue de\n"], "de",
                           held)
    assert kept == {"kafig": ["cage"]}
    assert counts["kept"] == 1
    # "Mindestlohn" and "Kündigung" are the reviewed lexicon's: its entry wins
    assert counts["translated by the reviewed or mined lexicon"] == 2
    # "Rahm" « crème » is left out: the look-up would read "Rahmen" « cadre » as its form (and "Rahmen" is
    # a frame word of questions, "im Rahmen von")
    assert counts["another headword reads as its form"] == 1
    assert counts["stop, relaxable or frame word"] == 1
    assert counts["no French term the corpus holds"] == 1  # « moineau »
    assert counts["not a content part of speech"] == 1
    # the English dictionary lists a sense's terms alphabetically: the most held first
    kept, _ = _select(["waiter /weitər/\ngarçon, garçon de café, serveur\n"], "en",
                      {"garcon": 20, "garcon de cafe": 1, "serveur": 50}, ordered=False)
    assert kept == {"waiter": ["serveur", "garcon"]}


def test_a_word_french_text_holds_or_a_compound_the_lexicon_cuts_is_left_out() -> None:
    held = {"personne": 9000, "fourniture": 900}
    kept, counts = _select(["Person /pɛʁˈzoːn/ <n, fem>\npersonne\n"], "de", held, french={"person": 31})
    assert kept == {} and counts["a word French text holds as it is"] == 1
    # "Hundesteuer" is cut into "Hund" + "Steuer", both reviewed entries: the cut wins
    assert xlang.compound_parts("hundesteuer", "de") == ("hund", "steuer")
    kept, counts = _select(["Hundesteuer /ˈhʊndəˌʃtɔɪ̯ɐ/ <n, fem>\nimpôt sur les chiens\n"], "de",
                           {"impot sur les chiens": 30})
    assert kept == {} and counts["cut as a compound of lexicon words"] == 1


def test_the_committed_file_names_its_licence_and_provenance() -> None:
    data = xlang._read(xlang.DICTIONARY_PATH)
    assert data["schema"] == xlang.DICTIONARY_SCHEMA
    # German only (ADR 0123): the English dictionary is selected by --languages de,en, never by default
    assert set(data["languages"]) == set(dict_xlang.SELECTED) == {"de"}
    de = data["languages"]["de"]
    assert de["licence"] == "CC-BY-SA-3.0" and "FreeDict contributors" in de["attribution"]
    assert de["package"] == "dict-freedict-deu-fra" and de["package_version"] != "unknown"
    assert de["filters"]["kept"] == len(de["entries"])
    # the English dictionary's own licence travels with it when it is selected
    assert dict_xlang.DICTIONARIES["en"]["licence"] == "GPL-2.0-or-later"
    assert xlang.dictionary("en").lookup("elevator", "en") is None


def test_the_dictionary_is_looked_up_by_stem_and_form() -> None:
    german = xlang.dictionary("de")
    assert german.lookup("schalldampfer", "de") == ("silencieux",)
    assert german.lookup("zuwanderung", "de") == ("immigration",)
    assert german.lookup("journalisten", "de") == ("journaliste",)  # a form of its stem
    assert german.lookup("rahmen", "de") is None and german.lookup("kundigung", "de") is None
    words = dict(german.entries())
    assert words["zuwanderung"] == ("immigration",)
    assert len(words) == len(german)
    # a packed table: its own entry first, then a form of its stem at most two letters apart
    table = xlang.packed([("elevator", ["ascenseur"]), ("elevators", ["monte charge"]), ("permit", ["permettre"])],
                         "en")
    assert table.lookup("elevator", "en") == ("ascenseur",)
    assert table.lookup("elevators", "en") == ("monte charge",)
    assert table.lookup("permits", "en") == ("permettre",)
    assert table.lookup("permission", "en") is None


def test_the_tier_is_the_lowest() -> None:
    # a word the reviewed lexicon translates keeps its entry
    found = xlang.translate(["kundigung", "arbeitsvertrag"], "de")
    assert all(u["source"] != xlang.DICTIONARY for u in found.used)
    # a compound of lexicon words is cut, not looked up
    found = xlang.translate(["hundesteuer"], "de")
    assert found.used[0]["source"] == "compound hund+steuer"
    # a word only the dictionary knows: an OR-alternative, reported with its tier
    found = xlang.translate(["zuwanderung", "luxemburg"], "de")
    assert found.alternatives["zuwanderung"] == ["immigration"]
    assert {"from": "zuwanderung", "to": ["immigration"], "source": xlang.DICTIONARY} in found.used
    # a frame word stays a frame word ("machen" is none of the dictionary's, "Rahmen" neither)
    found = xlang.translate(["rahmen", "zuwanderung", "arbeitsvertrag"], "de")
    assert found.fillers == ["rahmen"]


def test_a_dictionary_word_never_counts_as_translated() -> None:
    # "Zuwanderung" « immigration » adds terms; it is no translated word, so a word nothing translates is not
    # left out for it (as for a cognate): a word no French text holds is left out beside three translated words
    assert xlang.DICTIONARY in xlang.UNCOUNTED
    found = xlang.translate(["arbeitsvertrag", "kundigung", "mieter", "wegweisungx"], "de")
    assert found.untranslated == ["wegweisungx"]
    # … and kept beside two and a dictionary word
    found = xlang.translate(["zuwanderung", "arbeitsvertrag", "kundigung", "wegweisungx"], "de")
    assert "wegweisungx" in found.terms and not found.untranslated


def test_the_dictionary_is_held_packed() -> None:
    for language in xlang.SOURCES:
        xlang.lexicon(language)
    xlang.dictionary.cache_clear()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        sizes = [len(xlang.dictionary(language)) for language in xlang.SOURCES]
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # about 10,000 German words in 0.36 MB (a plain table of forms and stems: about 2.5 MB)
    assert sum(sizes) > 9_000
    assert after - before < 0.5e6
