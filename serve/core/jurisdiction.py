"""Questions asking for another country's law (issue #15, neg33; docs/search.md "Another country's
law"). Pure: reads the question's words only; the corpus test is :func:`serve.core.ops.search.foreign_law_not_held`.

The corpora hold Luxembourg's law (Legilux) and the EU's (EUR-Lex). A question naming an act *as
another state's* — « loi française du 29 juillet 1881 », « Code du travail français », « Code pénal
suisse », "Swiss Federal Act on Data Protection", "US Foreign Corrupt Practices Act", « Mindestlohngesetz
Deutschland », « belgisches Sterbehilfegesetz » — asks for an act neither publisher holds, however many of
its other words Luxembourg's or the EU's acts hold (« Code du travail » names Luxembourg's code; « Code
pénal » Luxembourg's). The shape is a word naming a state other than Luxembourg that *qualifies a word
for an act or for the law itself*:

- a country's adjective right before the act's words (English, German: "Swiss Federal Act", "Spanish
  housing law", « österreichisches Mietrechtsgesetz »): the act word within :data:`BEFORE_WORDS` words
  after the adjective, no link word between;
- a country's adjective after the act word and its name's own words (French: « loi française »,
  « Code du travail français », « Code pénal suisse », « arrêté royal belge »: within :data:`AFTER_WORDS`
  words; right after « droit », also a right), none of the words between a link word (« loi sur la langue française » asks for a law *on* French, not a
  French law);
- a country's name beside an act word (« Mindestlohngesetz Deutschland », "law in Germany"): not after a
  word joining two states (« convention entre la France et … », "agreement with Switzerland").

Never for a question naming Luxembourg too (Luxembourg's law on a foreign matter: frontier workers,
a tax treaty), an agreement between states (:data:`TREATY_WORDS`: Legilux holds the laws approving
them) or an EU act's form (a directive or regulation on a foreign matter is the EU's); "US" and
"UK" count only as the user wrote them, in capitals ("us" is a pronoun). Language names (« français »,
"German") are adjectives of a state only where the shape says so: "the German version of the Act" is no
act word after the adjective without a link word between ("version of").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from derive.index.text import fold, normalize
from serve.core import places
from serve.core.places import FOREIGN_PLACES, MAX_PLACE_WORDS, PLACE_FIRST_WORDS

#: Adjectives naming a state other than Luxembourg, normalised (FR/EN/DE; German inflections listed).
FOREIGN_ADJECTIVES = frozenset({
    # French
    "francais", "francaise", "francaises", "belge", "belges", "allemand", "allemande", "allemands",
    "allemandes", "suisse", "suisses", "autrichien", "autrichienne", "autrichiens", "autrichiennes",
    "neerlandais", "neerlandaise", "neerlandaises", "espagnol", "espagnole", "espagnols", "espagnoles",
    "italien", "italienne", "italiens", "italiennes", "portugais", "portugaise", "portugaises",
    "britannique", "britanniques", "americain", "americaine", "americains", "americaines", "irlandais",
    "irlandaise", "irlandaises", "polonais", "polonaise", "polonaises", "danois", "danoise", "suedois",
    "suedoise", "norvegien", "norvegienne", "finlandais", "finlandaise", "grec", "grecque", "tcheque",
    "hongrois", "hongroise", "roumain", "roumaine", "canadien", "canadienne", "japonais", "japonaise",
    "chinois", "chinoise", "russe", "turc", "turque",
    # English
    "french", "belgian", "german", "swiss", "austrian", "dutch", "spanish", "italian", "portuguese",
    "british", "american", "irish", "polish", "danish", "swedish", "norwegian", "finnish", "greek",
    "czech", "hungarian", "romanian", "canadian", "japanese", "chinese", "russian", "turkish",
    # German (indeclinable)
    "schweizer",
    # (the stems below take every inflection: -e, -en, -er, -es)
})
#: German adjective stems naming a state other than Luxembourg (``franzosisch`` + e/en/er/es …).
FOREIGN_ADJECTIVE_STEMS_DE = ("franzosisch", "belgisch", "deutsch", "schweizerisch", "osterreichisch",
                              "niederlandisch", "spanisch", "italienisch", "portugiesisch", "britisch",
                              "amerikanisch", "irisch", "polnisch", "danisch", "schwedisch", "norwegisch",
                              "finnisch", "griechisch", "tschechisch", "ungarisch", "rumanisch",
                              "kanadisch", "japanisch", "chinesisch", "russisch", "turkisch")
#: Names of states other than Luxembourg, normalised (one word; FR/EN/DE).
FOREIGN_COUNTRIES = frozenset({
    "france", "frankreich", "belgique", "belgium", "belgien", "allemagne", "germany", "deutschland",
    "switzerland", "schweiz", "autriche", "austria", "osterreich", "netherlands", "niederlande",
    "espagne", "spain", "spanien", "italie", "italy", "portugal", "irlande", "ireland", "irland",
    "pologne", "poland", "polen", "usa", "canada", "kanada", "japon", "japan", "chine", "china",
})
#: Forms of a state's name the user writes in capitals only ("us" is a pronoun, "uk" a word of no language).
CAPITAL_COUNTRIES = frozenset({"US", "UK", "U.S.", "U.K."})
#: Words for an act or for the law itself (normalised), and German compounds ending so.
ACT_WORDS = frozenset({"loi", "lois", "code", "codes", "droit", "decret", "ordonnance", "legislation", "arrete",
                       "arretes",
                       "law", "laws", "act", "acts", "statute", "statutes", "gesetz", "gesetze", "gesetzbuch", "recht", "verordnung"})
ACT_SUFFIXES_DE = ("gesetz", "gesetzes", "gesetzbuch", "ordnung", "recht", "rechts")
#: Words for a state's own lawmaking or governing body, read as act words (neg37): a state's word
#: qualifying one (« Sénat belge », « Assemblée nationale française », « Bundesrat allemand », "the
#: Spanish parliament") asks how that state is organised — its constitution or statutes, which neither
#: publisher holds — not the acts whose texts hold « élection », « membres » or « indemnité ». Its
#: legislative chambers, its head of state, a town's mayor (FR/EN/DE). Not its courts (« jugement d'un
#: tribunal allemand » asks the EU's and Luxembourg's rules on recognising it) nor its government or
#: ministers (the EU's state-aid and exposure rules name "the French government" as a party), and never
#: a question naming Luxembourg, the EU or a treaty (:func:`foreign_law`'s exceptions hold for these words too).
INSTITUTION_WORDS = frozenset({"parlement", "parlements", "senat", "assemblee", "maire", "roi",
                               "parliament", "senate", "congress", "legislature", "mayor", "king",
                               "parlament", "bundestag", "bundesrat", "nationalrat", "burgermeister", "konig"})
#: Words that make what follows the subject of the act, not its state (FR/EN/DE).
LINK_WORDS = frozenset({"sur", "relative", "relatif", "relatifs", "relatives", "concernant", "portant", "pour",
                        "a", "au", "aux", "entre", "avec", "en", "dans", "of", "on", "for", "about", "to",
                        "in", "with", "between", "from", "uber", "zur", "zum", "fur", "zwischen", "mit", "von",
                        "im", "and", "et", "und", "version", "fassung", "texte", "text", "traduction",
                        "translation", "ubersetzung", "langue", "language", "sprache"})
#: Words joining two states: a country's name after them is a party, not the act's state.
PARTY_WORDS = frozenset({"entre", "avec", "et", "between", "with", "and", "zwischen", "mit", "und", "to", "vers",
                         "nach", "from", "de", "aus", "par", "by"})
#: Words naming Luxembourg or an EU act's form: the question asks the corpus's own law then.
OWN_WORDS = frozenset({"luxembourg", "luxemburg", "luxembourgeois", "luxembourgeoise", "luxembourgeoises",
                       "luxembourgish", "luxemburger", "luxemburgisch", "luxemburgische", "luxemburgischen",
                       "luxemburgischer", "luxemburgisches", "grand", "directive", "directives", "regulation",
                       "regulations", "reglement", "reglements", "richtlinie", "ue", "eu", "eg", "ce", "cee",
                       "union", "europeenne", "european", "europaische", "europaischen", "communaute"})
#: Words for an agreement between states: Legilux holds the laws approving Luxembourg's treaties with
#: other states (« loi portant approbation de la convention avec la Belgique »), so a question naming
#: one asks Luxembourg's law.
TREATY_WORDS = frozenset({"convention", "conventions", "accord", "accords", "agreement", "agreements", "traite",
                          "treaty", "treaties", "protocole", "protocol", "abkommen", "vertrag", "ubereinkommen",
                          "approbation", "approving", "zustimmung"})
#: Official abbreviations of other states' statutes, as the user writes them (case kept; neg49): Germany's civil
#: code « § 823 BGB », its company, insolvency, trade, building, labour, procedure and road-traffic acts,
#: Austria's civil code and social-insurance act, Switzerland's debt-enforcement act. Only acts no Luxembourg
#: act is called by in German (the aliases call Luxembourg's codes « Strafgesetzbuch », « Handelsgesetzbuch »,
#: « Zivilprozessordnung »: StGB, HGB, ZPO, StPO and ZGB are left out), and none named for an EU act
#: (« DSGVO », « AEUV », « EuGVVO »).
FOREIGN_STATUTE_ABBREVIATIONS = frozenset({"BGB", "GmbHG", "AktG", "InsO", "GewO", "BauGB", "BetrVG", "KSchG",
                                           "ArbZG", "BUrlG", "EntgFG", "TzBfG", "FamFG", "VwVfG", "VwGO", "StVG",
                                           "ABGB", "ASVG", "SchKG"})
#: Whether :func:`foreign_law` reads another state's statute by its official name (neg50, ADR 0171).
STATUTE_NAMES = True
#: Official names of other states' statutes (normalised; one to three words, inflections listed): the statutes of
#: :data:`FOREIGN_STATUTE_ABBREVIATIONS` by their names (« Insolvenzordnung », « Bürgerliches Gesetzbuch »,
#: « Kündigungsschutzgesetz »), Germany's Basic Law and social code, Austria's tenancy act. Only names no
#: Luxembourg act is called by in German: not the civil, commercial, criminal and procedure codes (the aliases
#: say « Zivilgesetzbuch », « Handelsgesetzbuch », « Strafgesetzbuch », « Zivilprozessordnung »), nor the tax
#: acts Luxembourg kept from 1941 (« Abgabenordnung », « Bewertungsgesetz », « Einkommensteuergesetz »), nor a
#: name a German speaker may give Luxembourg's own act on the subject (« Straßenverkehrsgesetz »,
#: « Wohnungseigentumsgesetz »).
FOREIGN_STATUTE_NAMES = frozenset({
    "insolvenzordnung", "burgerliches gesetzbuch", "burgerlichen gesetzbuch", "burgerlichen gesetzbuches",
    "burgerlichen gesetzbuchs", "baugesetzbuch", "baugesetzbuches", "baugesetzbuchs", "betriebsverfassungsgesetz",
    "betriebsverfassungsgesetzes", "kundigungsschutzgesetz", "kundigungsschutzgesetzes", "arbeitszeitgesetz",
    "arbeitszeitgesetzes", "bundesurlaubsgesetz", "bundesurlaubsgesetzes", "entgeltfortzahlungsgesetz",
    "entgeltfortzahlungsgesetzes", "teilzeit und befristungsgesetz", "befristungsgesetz", "befristungsgesetzes",
    "verwaltungsverfahrensgesetz", "verwaltungsverfahrensgesetzes", "verwaltungsgerichtsordnung", "aktiengesetz",
    "aktiengesetzes", "gmbh gesetz", "gmbh gesetzes", "gmbhgesetz", "gewerbeordnung", "grundgesetz",
    "grundgesetzes", "sozialgesetzbuch", "sozialgesetzbuches", "sozialgesetzbuchs", "mietrechtsgesetz",
    "mietrechtsgesetzes", "allgemeines sozialversicherungsgesetz", "allgemeinen sozialversicherungsgesetz",
    "allgemeinen sozialversicherungsgesetzes", "schuldbetreibungs und konkursgesetz",
})
#: The most words of a name of :data:`FOREIGN_STATUTE_NAMES`.
STATUTE_NAME_WORDS = 3
#: The words a name of :data:`FOREIGN_STATUTE_NAMES` starts with (a word of none is looked up no further).
_STATUTE_FIRST_WORDS = frozenset(name.split()[0] for name in FOREIGN_STATUTE_NAMES)


def statute_name(words: list[str]) -> str | None:
    """The first official name of another state's statute (:data:`FOREIGN_STATUTE_NAMES`) among the question's
    normalised ``words``, longest first at each position, or ``None``. Pure."""
    if not STATUTE_NAMES:
        return None
    for i in range(len(words)):
        if words[i] not in _STATUTE_FIRST_WORDS:
            continue
        for n in range(min(STATUTE_NAME_WORDS, len(words) - i), 0, -1):
            name = " ".join(words[i:i + n])
            if name in FOREIGN_STATUTE_NAMES:
                return name
    return None


#: Articles a state's name may follow (« avec la Belgique »).
_ARTICLES = frozenset({"la", "le", "l", "les", "the", "der", "die", "das", "dem", "den"})
#: How far after an English/German adjective its act word may come ("US Foreign Corrupt Practices Act").
BEFORE_WORDS = 4
#: The act words whose adjective comes right after them: « droit » is also a right (« droit des
#: ressortissants suisses » is a right of Swiss nationals, not Swiss law).
ADJACENT_ONLY = frozenset({"droit", "recht"})
#: How far after a French act word its adjective may come (« Code de la sécurité sociale belge »,
#: « arrêté royal belge »); right after « droit » (:data:`ADJACENT_ONLY`).
AFTER_WORDS = 5

_DIGITS = re.compile(r"^\d+$")


@dataclass(frozen=True)
class ForeignLaw:
    """The state word a question names its act by, and the act word it qualifies."""

    state: str
    act: str


def _is_adjective(word: str) -> bool:
    return word in FOREIGN_ADJECTIVES or any(
        word.startswith(stem) and word[len(stem):] in ("", "e", "en", "er", "es") for stem in FOREIGN_ADJECTIVE_STEMS_DE
    ) or place_adjective(word)


def place_adjective(word: str) -> bool:
    """Whether the normalised ``word`` is the adjective of a state, region or town other than Luxembourg that
    :data:`FOREIGN_ADJECTIVES` lacks (« loi québécoise », "Bavarian law", « bayerisches Gesetz », « Wiener
    Mietrecht »: :data:`serve.core.places.PLACE_ADJECTIVES`), read as a state's adjective is (neg51, ADR 0176).
    Pure."""
    if not places.PLACE_ADJECTIVES_ON:
        return False
    return word in places.PLACE_ADJECTIVES or any(
        word.endswith(ending) and word[:len(word) - len(ending)] in places.PLACE_ADJECTIVE_STEMS_DE
        for ending in _GERMAN_ENDINGS)


#: The endings a German adjective stem takes (none, -e, -en, -er, -es).
_GERMAN_ENDINGS = ("", "e", "en", "er", "es")


#: A state's own officers and its rules, read as act words only right beside a state's adjective (neg49): a
#: state's word qualifying its prefect, governor or chancellor (« pouvoirs du préfet français », "the German
#: chancellor") asks how that state is governed, and its rules ("Belgian rules on …", « règles
#: françaises », « deutsche Vorschriften ») are its law. Not farther off ("German central bank governor",
#: "Belgian frontier workers' tax rules" are Luxembourg's or the EU's questions), not beside a state's name
#: ("rules for frontier workers living in France"), and never its ministers, government or president (the EU's
#: acts name "the French government" as a party, and its sanctions lists a state's president).
ADJACENT_ACT_WORDS = frozenset({"prefet", "prefets", "prefect", "prefects", "prafekt", "gouverneur", "governor",
                                "chancelier", "chancellor", "kanzler", "bundeskanzler", "rules", "rule", "regles",
                                "regle", "regeln", "regelungen", "vorschriften", "reglementation"})


def _is_act(word: str) -> bool:
    return word in ACT_WORDS or word in INSTITUTION_WORDS or (len(word) > 8 and word.endswith(ACT_SUFFIXES_DE))


def foreign_law(query: str) -> ForeignLaw | None:
    """The state other than Luxembourg a question names its act by (module docstring), or ``None``. Pure."""
    raw = query.replace("’", "'").split()
    words = normalize(query).split()
    missing = missing_own_body(words) or missing_own_kind(words)
    if missing:  # "composition of the Luxembourg Senate": a chamber Luxembourg has not (ADR 0171, 0183)
        return missing
    if (OWN_WORDS | TREATY_WORDS) & set(words):
        return None
    capitals = [w.strip(",.;:()") for w in raw]
    statute = next((w for w in capitals if w in FOREIGN_STATUTE_ABBREVIATIONS), None)
    if statute:  # « § 823 BGB »: another state's statute by its own abbreviation
        return ForeignLaw(statute.lower(), statute.lower())
    named = statute_name(words)
    if named:  # « Insolvenzordnung »: … or by its official name (ADR 0171)
        return ForeignLaw(named.split()[0], named.split()[-1])
    numbered = numbered_act(query)
    if numbered:  # « loi n° 2016-1691 »: France's numbering of its acts (ADR 0171)
        return numbered
    if any(w.rstrip(".") in {c.rstrip(".") for c in CAPITAL_COUNTRIES} for w in capitals):
        acts = [w for w in words if _is_act(w)]
        if acts:
            return ForeignLaw(next(w for w in capitals if w.rstrip(".") in {"US", "UK", "U.S", "U.K"}), acts[0])
    for i, word in enumerate(words):
        if _is_adjective(word):
            for j in range(i + 1, min(len(words), i + 1 + BEFORE_WORDS)):  # "Swiss Federal Act"
                if words[j] in LINK_WORDS or _DIGITS.match(words[j]):
                    break
                if _is_act(words[j]) or (j == i + 1 and words[j] in ADJACENT_ACT_WORDS):
                    return ForeignLaw(word, words[j])
        if _is_act(word) or word in ADJACENT_ACT_WORDS:
            # « loi française », « Code du travail français »; « droit belge », « préfet français » right after
            reach = 1 if word in ADJACENT_ONLY or word in ADJACENT_ACT_WORDS else AFTER_WORDS
            for j in range(i + 1, min(len(words), i + 1 + reach)):
                if words[j] in LINK_WORDS or _DIGITS.match(words[j]) or _is_act(words[j]):
                    break
                if _is_adjective(words[j]):
                    return ForeignLaw(words[j], word)
    acts = [w for w in words if _is_act(w)]
    for i, word in enumerate(words):
        before = [w for w in words[max(0, i - 2):i] if w not in _ARTICLES][-1:]
        if word in FOREIGN_COUNTRIES and acts and not PARTY_WORDS & set(before):
            return ForeignLaw(word, acts[0])
    return place_before_act(words) or foreign_body(words) or region_asked(words)


#: Whether :func:`foreign_law` reads a place's name qualifying an act word after it (neg51, ADR 0176).
PLACE_BEFORE_ACT = True
#: A Roman numeral after a place names an EU act or a treaty ("Rome II", "Dublin III", "Basel III"), not the place's.
_ROMAN = re.compile(r"^(?:i|ii|iii|iv|v|vi)$")


def place_before_act(words: list[str]) -> ForeignLaw | None:
    """A place of :data:`serve.core.places.FOREIGN_PLACES` (a state, a region, a town) used as an adjective before an
    act word, as English writes it ("Texas law on handguns", "California Consumer Privacy Act", "Quebec Civil
    Code"): the act word within :data:`BEFORE_WORDS` words after the place's name, no link word, number or Roman
    numeral between ("Rome II law applicable", "law in Texas" are not read), and not a town's name
    (:data:`serve.core.places.TOWNS`: "Rome Statute", "Geneva Act", "Helsinki Final Act" name treaties), or ``None``. Pure; ``words``
    normalised, the corpus's own and treaty words already ruled out by :func:`foreign_law` ("Paris Agreement",
    "Dublin regulation", "Brussels I regulation" are not read)."""
    if not PLACE_BEFORE_ACT:
        return None
    for i in range(len(words)):
        place = _place_at(words, i)
        if not place or place in places.TOWNS:
            continue
        for j in range(i + len(place.split()), min(len(words), i + len(place.split()) + BEFORE_WORDS)):
            if words[j] in LINK_WORDS or _DIGITS.match(words[j]) or _ROMAN.match(words[j]):
                break
            if _is_act(words[j]):
                return ForeignLaw(place, words[j])
    return None


#: Words for a body a place has of its own (neg49): a state's or region's legislature or supreme court, a
#: town's mayor, its head of state (:data:`INSTITUTION_WORDS` and these). « conseil » and "council" only
#: beside a word of :data:`COUNCIL_KINDS` (« conseil municipal », "city council"): the EU's Council is no
#: place's own body.
PLACE_BODY_WORDS = INSTITUTION_WORDS | frozenset({"landtag", "gemeinderat", "stadtrat", "governor", "gouverneur",
                                                  "prefet", "prefect", "prafekt", "supreme"})
#: The words that make « conseil » / "council" a town's or region's own assembly.
COUNCIL_KINDS = frozenset({"municipal", "communal", "regional", "general", "departemental", "city", "town",
                           "county", "state"})
_COUNCILS = frozenset({"conseil", "council"})
#: Words that may stand between a body and the place it belongs to (« maire de Metz », "mayor of the city of
#: Trier" is not read: a second noun ends the reach).
OF_WORDS = frozenset({"de", "du", "des", "d", "of", "the", "von", "der", "la", "le", "l", "les"})
#: Bodies named as another state's own, no place word needed (FR/EN/DE, normalised): the United Kingdom's
#: houses, a "House of Representatives", a senate (Luxembourg has none, nor the EU), the German-speaking states'
#: federal and regional chambers, their federal president and chancellor. Not "Congress" alone (a congress is also a meeting; "US Congress" is read by
#: the state's name) nor a parliament or an assembly (Luxembourg's Chamber and the EU's Parliament are ones).
NAMED_FOREIGN_BODIES = {"house of lords": ForeignLaw("lords", "house"),
                        "house of commons": ForeignLaw("commons", "house"),
                        "house of representatives": ForeignLaw("representatives", "house"),
                        **{word: ForeignLaw(word, word) for word in (
                            "senat", "senats", "senate", "senates", "bundestag", "bundestags", "bundestages",
                            "bundesrat", "bundesrats", "bundesrates", "nationalrat", "nationalrats", "nationalrates",
                            "landtag", "landtags", "landtages", "bundesversammlung", "bundesprasident",
                            "bundesprasidenten", "bundeskanzler", "bundeskanzlers")}}


def _place_at(words: list[str], i: int) -> str | None:
    """The longest name of :data:`serve.core.places.FOREIGN_PLACES` starting at ``words[i]``, or ``None``."""
    if words[i] not in PLACE_FIRST_WORDS:
        return None
    for n in range(min(MAX_PLACE_WORDS, len(words) - i), 0, -1):
        name = " ".join(words[i:i + n])
        if name in FOREIGN_PLACES:
            return name
    return None


def _is_body(words: list[str], i: int) -> bool:
    word = words[i]
    if word in _COUNCILS:
        return bool(COUNCIL_KINDS & set(words[max(0, i - 1):i + 2]))
    return word in PLACE_BODY_WORDS


def _place_after(words: list[str], i: int) -> str | None:
    """The place a body at ``words[i]`` belongs to, named after it through :data:`OF_WORDS` (« maire de Metz »,
    « conseil municipal de Paris », « Cour suprême des États-Unis », "mayor of Trier"); one qualifying word may
    come first (« municipal », "court")."""
    j, qualifiers, linked = i + 1, 0, False
    while j < len(words):
        if linked:
            place = _place_at(words, j)
            if place:
                return place
        if words[j] in OF_WORDS:
            linked = True
        elif linked or qualifiers:
            return None
        else:
            qualifiers += 1
        j += 1
    return None


def foreign_body(words: list[str]) -> ForeignLaw | None:
    """A body of a place outside Luxembourg that a question asks about (neg49, docs/search.md "Another place's own
    body"), or ``None``. Pure; ``words`` normalised, the corpus's own and treaty words already ruled out by
    :func:`foreign_law`. The place (:data:`serve.core.places.FOREIGN_PLACES`: a state, a region, a town) is the
    body's own: named after it through a link word (« pouvoirs de police du maire de Metz », "term of office of the
    mayor of Trier", « Bürgermeister von Wien », « composition du conseil municipal de Paris ») or right before it
    ("the Texas state legislature", "Trier city council"); or the body is one state's by its name ("House of
    Lords"). A place named otherwise (a frontier worker from Trier, a third country in an EU list, a boat on the
    Moselle) is not read: Luxembourg's and the EU's acts answer those."""
    text = " ".join(words)
    for name, shape in NAMED_FOREIGN_BODIES.items():
        if f" {name} " in f" {text} ":
            return shape
    for i in range(len(words)):
        if _is_body(words, i):
            place = _place_after(words, i)
            if place:
                return ForeignLaw(place, words[i])
        place = _place_at(words, i)
        if place:
            end = i + len(place.split())
            for j in range(end, min(len(words), end + 3)):
                if words[j] in LINK_WORDS or words[j] in OF_WORDS:
                    break
                if _is_body(words, j):
                    return ForeignLaw(place, words[j])
    return None


#: Whether :func:`foreign_law` reads a chamber only other states have, named as Luxembourg's (neg50, ADR 0171).
MISSING_OWN_BODIES = True
#: Words naming Luxembourg (normalised; « grand » is left out: "grand public" is no state's word).
LUXEMBOURG_WORDS = frozenset({"luxembourg", "luxemburg", "luxembourgeois", "luxembourgeoise", "luxembourgeoises",
                              "luxembourgish", "luxemburger", "luxemburgisch", "luxemburgische", "luxemburgischen",
                              "luxemburgischer", "luxemburgisches"})
#: The members of a senate (FR/EN/DE): Luxembourg's texts hold no senate, nor its senators.
SENATORS = frozenset({"senator", "senators", "senateur", "senateurs", "senatoren"})


def missing_own_body(words: list[str]) -> ForeignLaw | None:
    """A chamber Luxembourg has not, asked about as Luxembourg's ("composition of the Luxembourg Senate", "election of
    senators in Luxembourg", « Luxemburger Bundesrat »), or ``None``: the chambers of :data:`NAMED_FOREIGN_BODIES`
    (other states' by their names) and a senate's members (:data:`SENATORS`), in a question naming Luxembourg
    (:data:`LUXEMBOURG_WORDS`) and no other state, place, EU word or treaty (« Luxembourg relations with the
    Belgian Senate » names Belgium's; the EU's accession acts name other states' senates). Neither publisher holds
    an act on a body that does not exist: the EU texts holding « Senate » are about another state's. The state
    word is « luxembourg ». Pure; ``words`` normalised."""
    held = set(words)
    if not MISSING_OWN_BODIES or not LUXEMBOURG_WORDS & held:
        return None
    if (OWN_WORDS - LUXEMBOURG_WORDS - {"grand"}) & held or TREATY_WORDS & held:
        return None
    if any(_is_adjective(w) or w in FOREIGN_COUNTRIES or _place_at(words, i) for i, w in enumerate(words)):
        return None
    text = f" {' '.join(words)} "
    body = next((shape.state if " " in name else name for name, shape in NAMED_FOREIGN_BODIES.items()
                 if f" {name} " in text), None) or next((w for w in words if w in SENATORS), None)
    return ForeignLaw("luxembourg", body) if body else None


def luxembourg_alone(words: list[str]) -> bool:
    """Whether a question's normalised ``words`` name Luxembourg (:data:`LUXEMBOURG_WORDS`) and no other state, place,
    EU word or act form of the Union (:data:`OWN_WORDS`), nor a treaty (:data:`TREATY_WORDS`): the conditions of
    :func:`missing_own_body`, read alone ("Luxembourg video game regulatory authority and its powers" asks how a thing
    is in Luxembourg; "Luxembourg relations with the Belgian Senate", « directive … au Luxembourg » do not only).
    Pure."""
    held = set(words)
    if not LUXEMBOURG_WORDS & held or (OWN_WORDS - LUXEMBOURG_WORDS - {"grand"}) & held or TREATY_WORDS & held:
        return False
    return not any(_is_adjective(w) or w in FOREIGN_COUNTRIES or _place_at(words, i) for i, w in enumerate(words))


#: Whether :func:`foreign_law` reads a kind of body Luxembourg cannot have, named as Luxembourg's (neg52, ADR 0183).
MISSING_OWN_KINDS = True
#: The words of bodies a unitary, landlocked grand duchy has none of (normalised; FR/EN/DE): a federation's (« Cour
#: fédérale », "Federal Constitutional Court", « föderal »), a navy's and a coast guard's. « royal » is left out:
#: Luxembourg's King-Grand Dukes signed « arrêtés royaux grands-ducaux »; « marine » too: its merchant navy
#: (« marine marchande ») is held.
MISSING_OWN_KIND_WORDS = frozenset({"federal", "federale", "federales", "federaux", "federals", "foderal", "foderale",
                                    "foderalen", "foderaler", "foderales", "navy", "navies", "kriegsmarine",
                                    "coastguard", "coastguards", "kustenwache"})
#: The same kinds said in two words (normalised).
MISSING_OWN_KIND_PHRASES = ("coast guard", "garde cotiere", "garde cotieres", "garde cote", "garde cotes")
#: The German prefix of a federation's bodies (« Bundesverfassungsgericht », « Bundesamt », « Bundespolizei »).
FEDERAL_PREFIX_DE = "bundes"


def missing_own_kind(words: list[str]) -> ForeignLaw | None:
    """A kind of body Luxembourg cannot have, asked about as Luxembourg's ("Luxembourg Federal Constitutional Court
    powers", « Cour fédérale du Luxembourg », "Luxembourg Navy ships", « garde côtière luxembourgeoise », « Luxemburger
    Küstenwache », « Luxembourg Bundesverfassungsgericht »), or ``None``: a word of :data:`MISSING_OWN_KIND_WORDS`, a
    phrase of :data:`MISSING_OWN_KIND_PHRASES` or a German word opening with :data:`FEDERAL_PREFIX_DE`, with
    :func:`missing_own_body`'s conditions (a question naming Luxembourg and no other state, place, EU word or treaty:
    "Luxembourg's relations with the Federal Republic of Germany" names Germany). Neither publisher holds an act on a
    body that does not exist. The state word is « luxembourg », the act the word read. Pure; ``words`` normalised."""
    held = set(words)
    if not MISSING_OWN_KINDS or not LUXEMBOURG_WORDS & held:
        return None
    text = f" {' '.join(words)} "
    kind = next((w for w in words if w in MISSING_OWN_KIND_WORDS
                 or (w.startswith(FEDERAL_PREFIX_DE) and len(w) > len(FEDERAL_PREFIX_DE) + 2)), None) \
        or next((phrase for phrase in MISSING_OWN_KIND_PHRASES if f" {phrase} " in text), None)
    if kind is None or (OWN_WORDS - LUXEMBOURG_WORDS - {"grand"}) & held or TREATY_WORDS & held:
        return None
    if any(_is_adjective(w) or w in FOREIGN_COUNTRIES or _place_at(words, i) for i, w in enumerate(words)):
        return None
    return ForeignLaw("luxembourg", kind)


#: Whether :func:`foreign_law` reads an act cited by France's numbering (neg50, ADR 0171).
NUMBERED_ACTS = True
#: An act cited by a form word, a number sign and a number of two parts joined by a hyphen (« loi n° 2016-1691 »,
#: « décret n° 2019-1234 », « ordonnance nº 2020-306 », "Law No. 78-17"): France's numbering of its laws, decrees
#: and ordinances. Luxembourg cites its acts by form and date (its bills' numbers have no hyphen: « projet de loi
#: n° 7945 »), the EU by a number and year joined by a slash; a Code's article (« L. 121-6 ») has no number sign.
_NUMBERED = re.compile(r"\b(loi|lois|decret|decrets|ordonnance|ordonnances|law|decree|ordinance|gesetz|dekret)\s+"
                       r"(?:n\s*°|n\s*º|no\.?|nr\.?|numero)\s*(\d{2,4}-\d{1,5})\b(?!-\d)", re.IGNORECASE)


def numbered_act(query: str) -> ForeignLaw | None:
    """The act a question cites by France's numbering (:data:`_NUMBERED`), its number as the state's word (the
    shape is the state's, not a word of it) and its form, or ``None``. Pure; the caller's exceptions hold (a
    question naming Luxembourg, the EU or a treaty is not read)."""
    if not NUMBERED_ACTS:
        return None
    m = _NUMBERED.search(fold(query).lower())
    return ForeignLaw(m.group(2).replace("-", " "), normalize(m.group(1))) if m else None


#: The words before a place that make it where the question is asked (FR/EN/DE; an article may follow them).
WHERE_WORDS = frozenset({"in", "im", "en", "dans", "au", "aux"})


def region_asked(words: list[str]) -> ForeignLaw | None:
    """A region of another state (:data:`serve.core.places.REGIONS`: a Land, a canton, a province, a US state) named as
    where the question is asked (:data:`WHERE_WORDS`, an article allowed between: « Rechtsanspruch auf einen Kitaplatz
    in Bayern », « permis de construire en Bavière », "gun permit in Texas"): the rules there are the region's or its
    state's, which neither publisher holds; its state's word is the region, its act word the preposition, or ``None``.
    Not a state (the EU's acts and Luxembourg's answer "loans for companies hit by the war in Ukraine", "children living
    in France"), a town, nor a region of the Greater Region (a frontier worker's). Pure; ``words`` normalised, the
    corpus's own and treaty words already ruled out by :func:`foreign_law`."""
    if not places.REGION_ASKED:
        return None
    for i, word in enumerate(words):
        if word not in WHERE_WORDS:
            continue
        j = i + 1 + (i + 1 < len(words) and words[i + 1] in _ARTICLES)
        if j < len(words) and words[j] in PLACE_FIRST_WORDS:
            place = _place_at(words, j)
            if place and place in places.REGIONS:
                return ForeignLaw(place, word)
    return None
