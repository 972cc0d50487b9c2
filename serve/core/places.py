"""Places outside the corpora's jurisdiction (issue #15, neg49; docs/search.md "Another place's own
body"). Data only, pure: the names a question may give a state other than Luxembourg, one of its regions or one
of its towns, normalised (:func:`derive.index.text.normalize`: lower case, accents and punctuation off).

Source, reviewed for this class and not for any question: the ISO 3166-1 names of every state but Luxembourg
(English name and common name, with their French and German translations as Debian's iso-codes data gives them,
as the pycountry 26.2.16 package ships it), the ISO 3166-2 names of the first-level subdivisions of the states
whose laws a user in Luxembourg most often meets (Germany's Länder, Austria's states, Switzerland's cantons,
Belgium's regions and provinces, France's metropolitan regions, the Netherlands' provinces, Italy's regions,
Spain's autonomous communities, the United States' states and district, the United Kingdom's countries,
Canada's provinces and territories; English, French and German), the capitals of the European states and of a
few other large ones, the towns of the Greater Region across Luxembourg's borders, and the largest towns of the
neighbouring states, in the three languages where they differ. Left out: Luxembourg's own names (ISO 3166-2's
Belgian province « Luxembourg »), and names that are also ordinary words or first names in the three languages
(« marche », « réunion », "island", « uri », « maurice », « dominique », « grenade », « chili », "jersey",
« salvador », « nord », « sofia », "nice").

A place here qualifies nothing by itself: the EU's acts name states (third-country lists), regions
(the outermost regions, the Moselle) and towns (Rome I, the Brussels regulations); the shape that reads a place
as the subject of a question is :func:`serve.core.jurisdiction.foreign_body`.
"""

from __future__ import annotations

#: Names of states other than Luxembourg, of their first-level regions and of their towns (see the module).
FOREIGN_PLACES = frozenset({
    "aargau", "abruzzen", "abruzzes", "abruzzo", "afghanistan", "afrique du sud", "agypten", "alabama",
    "aland iles", "aland inseln", "aland islands", "alaska", "albania", "albanie", "albanien", "alberta", "algeria",
    "algerie", "algerien", "allemagne", "american samoa", "amerikanisch samoa", "amerikanische jungferninseln",
    "amsterdam", "andalousie", "andalucia", "andalusien", "andorra", "andorre", "angola", "anguilla", "antarctica",
    "antarctique", "antarktis", "antigua and barbuda", "antigua et barbuda", "antigua und barbuda", "antwerp",
    "antwerpen", "anvers", "appenzell ausserrhoden", "appenzell innerrhoden", "appenzell rhodes exterieures",
    "appenzell rhodes interieures", "apulien", "aquatorialguinea", "arabie saoudite", "aragon", "aragonien", "arel",
    "argentina", "argentine", "argentinien", "argovie", "arizona", "arkansas", "arlon", "armenia", "armenie",
    "armenien", "aruba", "aserbaidschan", "asturias principado de", "asturien", "asturies principaute des", "athen",
    "athenes", "athens", "athiopien", "australia", "australie", "australien", "austria", "autriche",
    "auvergne rhone alpes", "azerbaidjan", "azerbaijan", "bade wurtemberg", "baden wurttemberg", "bahamas",
    "bahrain", "bahrein", "bale", "bale campagne", "bale ville", "bangladesch", "bangladesh", "barbade", "barbados",
    "barcelona", "barcelone", "basel", "basel landschaft", "basel stadt", "basilicata", "basilicate", "basilikata",
    "basse autriche", "basse saxe", "baviere", "bayern", "beijing", "belarus", "belgien", "belgique", "belgium",
    "belize", "benin", "berlin", "bermuda", "bermudes", "bern", "berne", "bhoutan", "bhutan", "birmanie", "bitburg",
    "bolivia", "bolivia plurinational state of", "bolivie", "bolivie etat plurinational de", "bolivien",
    "bolivien plurinationaler staat", "bonaire saint eustache et saba", "bonaire sint eustatius and saba",
    "bonaire sint eustatius und saba", "bordeaux", "bosnia and herzegovina", "bosnie herzegovine",
    "bosnien und herzegowina", "boston", "botsuana", "botswana", "bourgogne franche comte", "bouvet insel",
    "bouvet island", "brabant flamand", "brabant septentrional", "brabant wallon", "brandebourg", "brandenburg",
    "brasilien", "bratislava", "brazil", "breme", "bremen", "bresil", "bretagne", "britische jungferninseln",
    "britisches territorium im indischen ozean", "british columbia", "british indian ocean territory",
    "brunei darussalam", "brussel", "brussels", "bruxelles", "bruxelles capitale region de", "bucarest",
    "bucharest", "budapest", "bukarest", "bulgaria", "bulgarie", "bulgarien", "burgenland", "burkina faso",
    "burundi", "cabo verde", "calabre", "calabria", "california", "californie", "cambodge", "cambodia", "cameroon",
    "cameroun", "campania", "campanie", "canada", "canarias", "canaries", "canberra", "cantabria", "cantabrique",
    "cap vert", "carinthie", "caroline du nord", "caroline du sud", "castilla la mancha", "castilla y leon",
    "castille et leon", "castille la manche", "catalunya cataluna", "cayman inseln", "cayman islands",
    "central african republic", "centre val de loire", "chad", "chicago", "chile", "china", "chine",
    "christmas ile", "christmas island", "chypre", "coblence", "cocos keeling iles", "cocos keeling islands",
    "cologne", "colombia", "colombie", "colombie britannique", "colorado", "comores", "comoros", "congo",
    "congo the democratic republic of the", "connecticut", "cook islands", "cookinseln", "copenhagen", "copenhague",
    "coree du nord", "coree du sud", "coree republique de", "coree republique populaire democratique de",
    "costa rica", "cote d ivoire", "croatia", "croatie", "cuba", "curacao", "cyprus", "czechia", "dakota du nord",
    "dakota du sud", "danemark", "delaware", "demokratische republik kongo", "denmark", "deutschland",
    "diedenhofen", "district de columbia", "district of columbia", "djibouti", "dominica", "dominican republic",
    "dominikanische republik", "drenthe", "dschibuti", "dublin", "dusseldorf", "ecuador", "egypt", "egypte",
    "el salvador", "emilia romagna", "emilie romagne", "emirats arabes unis", "england", "epinal", "equateur",
    "equatorial guinea", "eritrea", "erythree", "espagne", "estland", "estonia", "estonie", "eswatini",
    "etats unis", "ethiopia", "ethiopie", "extramadoure", "extremadura", "falkland islands malvinas",
    "falklandinseln malwinen", "faroe islands", "faroer inseln", "fidji", "fidschi", "fiji", "finland", "finlande",
    "finnland", "flamande region", "flamisch brabant", "flandre occidentale", "flandre orientale", "flevoland",
    "florida", "floride", "forbach", "france", "francfort", "frankfurt", "frankreich", "franzosisch guyana",
    "franzosisch polynesien", "franzosische sud und antarktisgebiete", "french guiana", "french polynesia",
    "french southern territories", "fribourg", "friuli venezia giulia", "fryslan", "gabon", "gabun",
    "galicia galicia", "gambia", "gambie", "gand", "gelderland", "geneva", "geneve", "genf", "gent", "georgia",
    "georgie", "georgie du sud et les iles sandwich du sud", "georgien", "germany", "ghana", "ghent", "gibraltar",
    "glaris", "glarus", "grand est", "graubunden", "grece", "greece", "greenland", "grenada", "griechenland",
    "grisons", "groenland", "groningen", "groningue", "gronland", "guadeloupe", "guam", "guatemala", "gueldre",
    "guernesey", "guernsey", "guinea", "guinea bissau", "guinee", "guinee bissau", "guinee equatoriale", "guyana",
    "guyane francaise", "hainaut", "haiti", "hambourg", "hamburg", "haute autriche", "hauts de france", "hawaii",
    "heard island and mcdonald islands", "heard und mcdonaldinseln", "heiliger stuhl staat vatikanstadt",
    "helsinki", "hennegau", "hesse", "hessen", "hollande meridionale", "hollande septentrionale",
    "holy see vatican city state", "honduras", "hong kong", "hongkong", "hongrie", "hungary", "iceland", "idaho",
    "ile bouvet", "ile de france", "ile de man", "ile du prince edouard", "ile norfolk", "iles caimans",
    "iles cook", "iles feroe", "iles heard et macdonald", "iles mariannes du nord", "iles marshall",
    "iles mineures eloignees des etats unis", "iles pitcairn", "iles turques et caiques",
    "iles vierges britanniques", "iles vierges etats unis", "illes balears islas baleares", "illinois", "inde",
    "india", "indiana", "indien", "indonesia", "indonesie", "indonesien", "insel man", "iowa", "irak", "iran",
    "iran islamic republic of", "iran islamische republik", "iran republique islamique d", "iraq", "ireland",
    "irland", "irlande", "islande", "isle of man", "israel", "italie", "italien", "italy", "jamaica", "jamaika",
    "jamaique", "japan", "japon", "jemen", "jordan", "jordanie", "jordanien", "jura", "kaiserslautern", "kalabrien",
    "kalifornien", "kambodscha", "kamerun", "kampanien", "kanada", "kanaren", "kansas", "kantabrien", "kap verde",
    "karnten", "kasachstan", "kastilien la mancha", "kastilien und leon", "katar", "kazakhstan", "kenia",
    "kentucky", "kenya", "kirghizistan", "kirgisistan", "kiribati", "koblenz", "kokos keeling inseln", "koln",
    "kolumbien", "komoren", "kongo", "kopenhagen", "korea democratic people s republic of",
    "korea demokratische volksrepublik", "korea republic of", "korea republik", "koweit", "kroatien", "kuba",
    "kuwait", "kyrgyzstan", "la rioja", "lao people s democratic republic", "lao republique democratique populaire",
    "laos", "laos demokratische volksrepublik", "latium", "latvia", "lazio", "lebanon", "lesotho", "lettland",
    "lettonie", "liban", "libanon", "liberia", "libya", "libye", "libyen", "liechtenstein", "liege", "liguria",
    "ligurie", "ligurien", "lille", "limburg", "limourg", "lisboa", "lisbon", "lisbonne", "lissabon", "litauen",
    "lithuania", "lituanie", "ljubljana", "lombardei", "lombardia", "lombardie", "london", "londres", "longwy",
    "los angeles", "louisiana", "louisiane", "lucerne", "luttich", "luzern", "lyon", "macao", "macau",
    "macedoine du nord", "madagascar", "madagaskar", "madrid", "madrid communaute de", "madrid comunidad de",
    "mailand", "maine", "mainz", "malaisie", "malawi", "malaysia", "maldives", "malediven", "mali",
    "malouines iles falkland", "malta", "malte", "manitoba", "marken", "maroc", "marokko", "marseille",
    "marshall islands", "marshallinseln", "martinique", "maryland", "massachusetts", "mauretanien", "mauritania",
    "mauritanie", "mauritius", "mayence", "mayotte", "mecklembourg pomeranie occidentale", "mecklenburg vorpommern",
    "metz", "mexico", "mexiko", "mexique", "michigan", "micronesia federated states of",
    "micronesie etats federes de", "mikronesien foderierte staaten von", "milan", "milano", "minnesota",
    "mississippi", "missouri", "moldau", "moldau republik", "moldavie", "moldova", "moldova republic of",
    "moldova republique de", "molise", "monaco", "mongolei", "mongolia", "mongolie", "montana", "montenegro",
    "montserrat", "morocco", "mosambik", "moscou", "moscow", "moskau", "mozambique", "munchen", "munich",
    "murcei region de", "murcia region de", "myanmar", "namibia", "namibie", "namur", "nancy", "nantes", "naples",
    "napoli", "nauru", "navarra comunidad foral de", "nebraska", "nepal", "netherlands", "neuchatel", "neuenburg",
    "neukaledonien", "neuseeland", "nevada", "new brunswick", "new caledonia", "new hampshire", "new jersey",
    "new mexico", "new york", "new zealand", "newfoundland and labrador", "newfoundland und labrador", "nicaragua",
    "nicosia", "nicosie", "nidwald", "nidwalden", "niederlande", "niederosterreich", "niedersachsen", "niger",
    "nigeria", "nikosia", "nioue", "niue", "noord brabant", "noord holland", "nordbrabant", "nordholland",
    "nordkorea", "nordliche marianen", "nordmazedonien", "nordrhein westfalen", "nordwest territorien",
    "norfolk island", "norfolkinsel", "normandie", "north carolina", "north dakota", "north korea",
    "north macedonia", "northern mariana islands", "northwest territories", "norvege", "norway", "norwegen",
    "nouveau brunswick", "nouveau mexique", "nouvelle aquitaine", "nouvelle caledonie", "nouvelle ecosse",
    "nouvelle zelande", "nova scotia", "nunavut", "oberosterreich", "obwald", "obwalden", "occitanie", "ohio",
    "oklahoma", "okzitanien", "oman", "ombrie", "ontario", "oost vlaanderen", "oregon", "oslo", "osterreich",
    "ostflandern", "ottawa", "ouganda", "ouzbekistan", "overijssel", "pais vasco", "pakistan", "palaos",
    "palastina staat", "palau", "palestine etat de", "palestine state of", "panama", "papouasie nouvelle guinee",
    "papua neuguinea", "papua new guinea", "paraguay", "paris", "pays bas", "pays de la loire", "pekin", "peking",
    "pennsylvania", "pennsylvanie", "perou", "peru", "philippinen", "philippines", "piemont", "piemonte",
    "pitcairn", "poland", "polen", "pologne", "polynesie francaise", "porto rico", "portugal", "pouilles", "prag",
    "prague", "praha", "prince edward island", "provence alpes cote d azur", "puerto rico", "puglia", "qatar",
    "quebec", "republique centrafricaine", "republique democratique du congo", "republique dominicaine",
    "republique du congo", "reunion ile de la", "reykjavik", "rheinland pfalz", "rhenanie du nord westfalie",
    "rhenanie palatinat", "rhode island", "riga", "rom", "roma", "romania", "rome", "rotterdam", "roumanie",
    "royaume uni", "ruanda", "rumanien", "russian federation", "russie federation de", "russische foderation",
    "rwanda", "saarbrucken", "saarland", "saarlouis", "sachsen", "sachsen anhalt", "sahara occidental",
    "saint barthelemy", "saint christophe et nieves", "saint gall", "saint helena ascension and tristan da cunha",
    "saint kitts and nevis", "saint lucia", "saint marin", "saint martin franzosischer teil",
    "saint martin french part", "saint martin niederlandischer teil", "saint martin partie francaise",
    "saint martin partie neerlandaise", "saint pierre and miquelon", "saint pierre et miquelon",
    "saint siege etat de la cite du vatican", "saint vincent and the grenadines", "saint vincent et les grenadines",
    "sainte helene ascension et tristan da cunha", "sainte lucie", "salomon iles", "salomoninseln", "salzbourg",
    "salzburg", "sambia", "samoa", "samoa americaines", "san francisco", "san marino", "sankt gallen",
    "sao tome and principe", "sao tome et principe", "sao tome und principe", "sardaigne", "sardegna", "sardinien",
    "sarre", "sarrebruck", "sarrelouis", "saskatchewan", "saudi arabia", "saudi arabien", "saxe", "saxe anhalt",
    "schaffhausen", "schaffhouse", "schleswig holstein", "schottland", "schweden", "schweiz", "schwytz", "schwyz",
    "scotland", "senegal", "serbia", "serbie", "serbien", "seychellen", "seychelles", "sicile", "sicilia",
    "sierra leone", "simbabwe", "singapore", "singapour", "singapur", "sint maarten dutch part", "sizilien",
    "slovakia", "slovaquie", "slovenia", "slovenie", "slowakei", "slowenien", "soleure", "solomon islands",
    "solothurn", "somalia", "somalie", "soudan", "soudan du sud", "south africa", "south carolina", "south dakota",
    "south georgia and the south sandwich islands", "south georgia und die sudlichen sandwichinseln", "south korea",
    "south sudan", "spain", "spanien", "sri lanka", "st helena ascension und tristan da cunha",
    "st kitts und nevis", "st lucia", "st pierre und miquelon", "st vincent und die grenadinen", "steiermark",
    "stockholm", "strasbourg", "strassburg", "stuttgart", "styrie", "sudafrika", "sudan", "sudholland", "sudkorea",
    "sudsudan", "suede", "suisse", "surinam", "suriname", "svalbard and jan mayen", "svalbard et ile jan mayen",
    "svalbard und jan mayen", "sweden", "switzerland", "syria", "syrian arab republic", "syrie", "syrien",
    "syrien arabische republik", "syrienne republique arabe", "tadjikistan", "tadschikistan", "taiwan",
    "taiwan chinesische provinz", "taiwan province de chine", "taiwan province of china", "tajikistan", "tallinn",
    "tansania", "tansania vereinigte republik", "tanzania", "tanzania united republic of", "tanzanie",
    "tanzanie republique unie de", "tchad", "tchequie", "tennessee", "terre neuve et labrador",
    "terres australes francaises", "territoire britannique de l ocean indien", "territoires du nord ouest",
    "tessin", "texas", "thailand", "thailande", "thionville", "thurgau", "thurgovie", "thuringen", "ticino",
    "timor leste", "timor oriental", "tirol", "togo", "tokelau", "tokyo", "tonga", "torino", "toscana", "toscane",
    "toskana", "toulouse", "trentin haut adige", "trentino alto adige", "trentino sudtirol", "treves", "trier",
    "trinidad and tobago", "trinidad und tobago", "trinite et tobago", "tschad", "tschechien", "tunesien",
    "tunisia", "tunisie", "turin", "turinge", "turkei", "turkiye", "turkmenistan", "turks and caicos islands",
    "turks und caicosinseln", "turquie", "tuvalu", "tyrol", "uganda", "ukraine", "umbria", "umbrien", "ungarn",
    "united arab emirates", "united kingdom", "united states", "united states minor outlying islands", "uruguay",
    "usbekistan", "utah", "utrecht", "uzbekistan", "valais", "valenciana comunidad", "valle d aosta", "valletta",
    "vanuatu", "varsovie", "vaud", "venetie", "venetien", "veneto", "venezuela", "venezuela bolivarian republic of",
    "venezuela bolivarische republik", "venezuela republique bolivarienne du", "verdun",
    "vereinigte arabische emirate", "vereinigte staaten", "vereinigtes konigreich", "vermont", "vienna", "vienne",
    "viet nam", "vietnam", "vilnius", "virgin islands british", "virgin islands u s", "virginia",
    "virginia occidentale", "virginie", "vlaams brabant", "vlaams gewest", "vorarlberg", "waadt",
    "wales cymru gb cym", "wallis", "wallis and futuna", "wallis et futuna", "wallis und futuna",
    "wallonisch brabant", "wallonne region", "warsaw", "warschau", "washington", "weihnachtsinseln",
    "west virginia", "west vlaanderen", "western sahara", "westflandern", "westsahara", "wien", "wisconsin",
    "wyoming", "yemen", "yukon", "zagreb", "zambia", "zambie", "zeeland", "zelande", "zentralafrikanische republik",
    "zimbabwe", "zoug", "zug", "zuid holland", "zurich", "zypern",
})
#: The most words a name of :data:`FOREIGN_PLACES` has.
MAX_PLACE_WORDS = max(len(place.split()) for place in FOREIGN_PLACES)
#: The first words of the names of :data:`FOREIGN_PLACES` (a word no name starts with is looked up no further).
PLACE_FIRST_WORDS = frozenset(place.split()[0] for place in FOREIGN_PLACES)


#: The names of :data:`FOREIGN_PLACES` that are towns (a state's capital, a large town, a Greater Region town; a town
#: that is also a Land or a canton, « Berlin », « Genève », counted here). A town names treaties and acts the corpora
#: hold ("Rome Statute", "Geneva Act of the Lisbon Agreement", "Helsinki Final Act"), so
#: :func:`serve.core.jurisdiction.place_before_act` does not read one.
TOWNS = frozenset({
    "amsterdam", "antwerp", "antwerpen", "anvers", "arel", "arlon", "athen", "athenes", "athens", "barcelona",
    "barcelone", "basel", "bale", "beijing", "berlin", "bern", "berne", "bitburg", "bordeaux", "boston",
    "bratislava", "breme", "bremen", "brussel", "brussels", "bruxelles", "bucarest", "bucharest", "budapest",
    "bukarest", "canberra", "chicago", "coblence", "cologne", "copenhagen", "copenhague", "diedenhofen", "dublin",
    "dusseldorf", "epinal", "forbach", "francfort", "frankfurt", "gand", "geneva", "geneve", "genf", "gent", "ghent",
    "hambourg", "hamburg", "helsinki", "hong kong", "hongkong", "kaiserslautern", "koblenz", "koln", "kopenhagen",
    "liege", "lille", "lisboa", "lisbon", "lisbonne", "lissabon", "ljubljana", "london", "londres", "longwy",
    "los angeles", "lucerne", "luttich", "luzern", "lyon", "macao", "macau", "madrid", "mailand", "mainz",
    "marseille", "mayence", "metz", "milan", "milano", "moscou", "moscow", "moskau", "munchen", "munich", "namur",
    "nancy", "nantes", "naples", "napoli", "new york", "nicosia", "nicosie", "nikosia", "oslo", "ottawa", "paris",
    "pekin", "peking", "prag", "prague", "praha", "reykjavik", "riga", "rom", "roma", "rome", "rotterdam",
    "saarbrucken", "saarlouis", "san francisco", "sarrebruck", "sarrelouis", "singapore", "singapour", "singapur",
    "stockholm", "strasbourg", "strassburg", "stuttgart", "tallinn", "thionville", "tokyo", "torino", "toulouse",
    "treves", "trier", "turin", "utrecht", "valletta", "varsovie", "verdun", "vienna", "vienne", "vilnius", "warsaw",
    "warschau", "washington", "wien", "zagreb", "zurich", "zug", "zoug", "fribourg", "neuchatel", "neuenburg",
    "salzburg", "salzbourg", "gibraltar", "monaco", "san marino", "andorra", "liechtenstein",
})

#: Whether :func:`serve.core.jurisdiction.foreign_law` reads the adjectives of :data:`PLACE_ADJECTIVES` as a state's
#: (neg51, ADR 0176).
PLACE_ADJECTIVES_ON = True


def _french_forms(pairs: str) -> frozenset[str]:
    """Every form of French adjectives given as ``masculine/feminine`` pairs: both, and their plurals (-s, none
    after -s or -x). Pure."""
    out: set[str] = set()
    for pair in pairs.split():
        for form in pair.split("/"):
            out.add(form)
            out.add(form if form.endswith(("s", "x")) else form + "s")
    return frozenset(out)


#: The adjectives (normalised, one word) of states other than Luxembourg that :data:`jurisdiction.FOREIGN_ADJECTIVES`
#: lacks, and of the regions and towns of :data:`FOREIGN_PLACES` that legislate or that a user may name a law by
#: (a Land, a canton, a province, a region, a US state, a large town), in French (every gender and number), English
#: and German (indeclinable forms; the declined stems are :data:`PLACE_ADJECTIVE_STEMS_DE`). Reviewed for the class,
#: from the places' usual adjectives (the French gentilés, the English and German demonyms), not from any question.
#: Left out: adjectives that are also an ordinary word or a term of the corpora's law (« romain » : Roman law;
#: « lombard » : a Lombard loan; « rhénan » : the Rhine's navigation, which Luxembourg's acts regulate; « sarde » ;
#: "hamburger"), and the adjectives of the Greater Region's towns (a frontier worker's town: « messin »,
#: « thionvillois », « arlonais », "Trierer", « Saarbrücker »).
PLACE_ADJECTIVES = _french_forms(
    # states
    "slovaque/slovaque slovene/slovene croate/croate bulgare/bulgare lituanien/lituanienne letton/lettone "
    "estonien/estonienne maltais/maltaise chypriote/chypriote islandais/islandaise ukrainien/ukrainienne serbe/serbe "
    "albanais/albanaise monegasque/monegasque liechtensteinois/liechtensteinoise andorran/andorrane "
    "mexicain/mexicaine bresilien/bresilienne argentin/argentine chilien/chilienne australien/australienne "
    "indien/indienne israelien/israelienne marocain/marocaine tunisien/tunisienne algerien/algerienne "
    "coreen/coreenne egyptien/egyptienne anglais/anglaise ecossais/ecossaise gallois/galloise "
    "neozelandais/neozelandaise sudafricain/sudafricaine "
    # regions, Länder, cantons, provinces, US states
    "quebecois/quebecoise ontarien/ontarienne albertain/albertaine bavarois/bavaroise wallon/wallonne "
    "flamand/flamande bruxellois/bruxelloise lorrain/lorraine alsacien/alsacienne breton/bretonne "
    "normand/normande corse/corse provencal/provencale sarrois/sarroise hessois/hessoise saxon/saxonne "
    "prussien/prussienne genevois/genevoise vaudois/vaudoise bernois/bernoise zurichois/zurichoise "
    "balois/baloise tessinois/tessinoise valaisan/valaisanne fribourgeois/fribourgeoise "
    "neuchatelois/neuchateloise lucernois/lucernoise jurassien/jurassienne argovien/argovienne "
    "tyrolien/tyrolienne styrien/styrienne carinthien/carinthienne catalan/catalane andalou/andalouse "
    "basque/basque galicien/galicienne madrilene/madrilene toscan/toscane sicilien/sicilienne "
    "venitien/venitienne piemontais/piemontaise californien/californienne texan/texane floridien/floridienne "
    "yorkais/yorkaise "
    # towns
    "parisien/parisienne lyonnais/lyonnaise marseillais/marseillaise strasbourgeois/strasbourgeoise "
    "lillois/lilloise liegeois/liegeoise namurois/namuroise anversois/anversoise gantois/gantoise "
    "berlinois/berlinoise munichois/munichoise viennois/viennoise londonien/londonienne "
    "barcelonais/barcelonaise milanais/milanaise"
) | frozenset({
    # English
    "slovak", "slovakian", "slovenian", "croatian", "bulgarian", "lithuanian", "latvian", "estonian", "maltese",
    "cypriot", "icelandic", "ukrainian", "serbian", "albanian", "mexican", "brazilian", "argentinian", "argentine",
    "chilean", "australian", "indian", "israeli", "moroccan", "tunisian", "algerian", "korean", "egyptian",
    "english", "scottish", "welsh", "quebecois", "quebecer", "ontarian", "albertan", "bavarian", "walloon",
    "flemish", "alsatian", "saxon", "prussian", "hessian", "genevan", "bernese", "tyrolean", "styrian", "catalan",
    "andalusian", "basque", "galician", "tuscan", "sicilian", "venetian", "californian", "texan", "floridian",
    "parisian", "berliner", "viennese", "londoner", "milanese",
    # German, indeclinable (a town's or canton's adjective: « Wiener Mietrecht », « Zürcher Steuergesetz »)
    "wiener", "munchner", "kolner", "frankfurter", "stuttgarter", "dusseldorfer", "zurcher", "genfer",
    "basler", "berner", "luzerner", "tiroler", "salzburger", "vorarlberger", "karntner", "pariser",
    "bruesseler", "brusseler",
})
#: German adjective stems of the places of :data:`PLACE_ADJECTIVES` (+ e/en/er/es: « bayerisches Gesetz »).
PLACE_ADJECTIVE_STEMS_DE = frozenset({"slowakisch", "slowenisch", "kroatisch", "bulgarisch", "litauisch", "lettisch",
                            "estnisch", "maltesisch", "zyprisch", "islandisch", "ukrainisch", "serbisch",
                            "albanisch", "mexikanisch", "brasilianisch", "argentinisch", "australisch", "indisch",
                            "israelisch", "marokkanisch", "koreanisch", "agyptisch", "englisch", "schottisch",
                            "walisisch", "bayerisch", "bayrisch", "hessisch", "sachsisch", "thuringisch",
                            "brandenburgisch", "niedersachsisch", "westfalisch", "badisch", "wurttembergisch",
                            "saarlandisch", "pfalzisch", "holsteinisch", "mecklenburgisch", "preussisch",
                            "hamburgisch", "bremisch", "berlinisch", "wallonisch", "flamisch", "elsassisch",
                            "lothringisch", "tirolisch", "steirisch", "karntnerisch", "katalanisch", "baskisch",
                            "andalusisch", "toskanisch", "sizilianisch", "kalifornisch", "texanisch", "floridianisch",
                            "bernisch", "zurcherisch", "genferisch", "wienerisch", "quebecisch"})


#: Whether :func:`serve.core.jurisdiction.region_asked` reads a question asked *in* one of :data:`REGIONS` (neg51).
REGION_ASKED = True
#: The first-level regions of :data:`FOREIGN_PLACES` (ISO 3166-2's subdivisions of the states of the module
#: docstring, by their names in :data:`FOREIGN_PLACES`), less the states' and towns' names, the Greater Region's
#: regions (a frontier worker lives in the Saarland, Rhineland-Palatinate, the Grand Est or Wallonia; Belgium's
#: and the Netherlands' Limburg), the outermost regions the EU's acts provide for (the Canaries) and names that are
#: also another place's or an ordinary word (« Jura », "Maine", « Marken », « Hesse »).
REGIONS = frozenset({
    "aargau", "abruzzen", "abruzzes", "abruzzo", "alabama", "alaska", "alberta", "andalousie", "andalucia",
    "andalusien", "appenzell ausserrhoden", "appenzell innerrhoden", "appenzell rhodes exterieures",
    "appenzell rhodes interieures", "apulien", "aragon", "aragonien", "argovie", "arizona", "arkansas",
    "asturias principado de", "asturien", "asturies principaute des", "auvergne rhone alpes", "bade wurtemberg",
    "baden wurttemberg", "bale campagne", "bale ville", "basel landschaft", "basel stadt", "basilicata",
    "basilicate", "basilikata", "basse autriche", "basse saxe", "baviere", "bayern", "bourgogne franche comte",
    "brabant flamand", "brabant septentrional", "brabant wallon", "brandebourg", "brandenburg", "bretagne",
    "british columbia", "burgenland", "calabre", "calabria", "california", "californie", "campania", "campanie",
    "cantabria", "cantabrique", "carinthie", "caroline du nord", "caroline du sud", "castilla la mancha",
    "castilla y leon", "castille et leon", "castille la manche", "catalunya cataluna", "centre val de loire",
    "colombie britannique", "colorado", "connecticut", "dakota du nord", "dakota du sud", "delaware",
    "district de columbia", "district of columbia", "drenthe", "emilia romagna", "emilie romagne", "england",
    "extramadoure", "extremadura", "flamande region", "flamisch brabant", "flandre occidentale",
    "flandre orientale", "flevoland", "florida", "floride", "friuli venezia giulia", "fryslan", "galicia galicia",
    "gelderland", "glaris", "glarus", "graubunden", "grisons", "groningen", "groningue", "gueldre",
    "haute autriche", "hauts de france", "hawaii", "hennegau", "hessen", "hollande meridionale",
    "hollande septentrionale", "idaho", "ile de france", "ile du prince edouard", "illes balears islas baleares",
    "illinois", "indiana", "iowa", "kalabrien", "kalifornien", "kampanien", "kansas", "kantabrien", "karnten",
    "kastilien la mancha", "kastilien und leon", "kentucky", "la rioja", "latium", "lazio", "liguria", "ligurie",
    "ligurien", "lombardei", "lombardia", "lombardie", "louisiana", "louisiane", "madrid communaute de",
    "madrid comunidad de", "manitoba", "maryland", "massachusetts", "mecklembourg pomeranie occidentale",
    "mecklenburg vorpommern", "michigan", "minnesota", "mississippi", "missouri", "molise", "montana",
    "murcei region de", "murcia region de", "nebraska", "nevada", "new brunswick", "new hampshire", "new jersey",
    "new mexico", "newfoundland and labrador", "newfoundland und labrador", "nidwald", "nidwalden",
    "niederosterreich", "niedersachsen", "noord brabant", "noord holland", "nordbrabant", "nordholland",
    "nordrhein westfalen", "nordwest territorien", "normandie", "north carolina", "north dakota",
    "northwest territories", "nouveau brunswick", "nouveau mexique", "nouvelle aquitaine", "nouvelle ecosse",
    "nova scotia", "nunavut", "oberosterreich", "obwald", "obwalden", "occitanie", "ohio", "oklahoma", "okzitanien",
    "ombrie", "ontario", "oost vlaanderen", "oregon", "ostflandern", "overijssel", "pays de la loire",
    "pennsylvania", "pennsylvanie", "piemont", "piemonte", "pouilles", "prince edward island",
    "provence alpes cote d azur", "puglia", "quebec", "rhenanie du nord westfalie", "rhode island", "sachsen",
    "sachsen anhalt", "saint gall", "sankt gallen", "sardaigne", "sardegna", "sardinien", "saskatchewan", "saxe",
    "saxe anhalt", "schaffhausen", "schaffhouse", "schleswig holstein", "schottland", "schwytz", "schwyz",
    "scotland", "sicile", "sicilia", "sizilien", "soleure", "solothurn", "south carolina", "south dakota",
    "steiermark", "styrie", "sudholland", "tennessee", "terre neuve et labrador", "territoires du nord ouest",
    "tessin", "texas", "thurgau", "thurgovie", "thuringen", "ticino", "tirol", "toscana", "toscane", "toskana",
    "trentin haut adige", "trentino alto adige", "trentino sudtirol", "turinge", "tyrol", "umbria", "umbrien",
    "utah", "valais", "valenciana comunidad", "vaud", "venetie", "venetien", "veneto", "vermont", "virginia",
    "virginia occidentale", "virginie", "vlaams brabant", "vlaams gewest", "vorarlberg", "waadt",
    "wales cymru gb cym", "wallis", "wallonisch brabant", "west virginia", "west vlaanderen", "westflandern",
    "wisconsin", "wyoming", "yukon", "zeeland", "zelande", "zuid holland",
})
