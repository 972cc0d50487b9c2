"""The index format ``lex-evidence-index/9``: DDL, table order, digest order, read-side constants.

One SQLite file per publisher (``<publisher>.sqlite``). Both the builder and the serving
side import this module: the builder to create the file, the server to check what it mounts.
The prose description of every table is in ``docs/index.md``; this module is the executable
truth.

Row ids are assigned by the builder in a documented deterministic order (works by slug,
versions by work then ``valid_from`` then ``version_key``, expressions by language,
provisions by document order), never by enumeration order, so two builds from the same
inputs insert the same rows in the same order and produce the same bytes.
"""

from __future__ import annotations

from derive.index.serving import DDL as SERVING_DDL
from derive.index.serving import TABLES as SERVING_TABLES

# the naming rule is shared with release (which may not import derive); re-exported here
from legal.artifacts import index_file_name as index_file_name
from legal.artifacts import stamp_file_name as stamp_file_name

INDEX_FORMAT = "lex-evidence-index/9"
#: ``PRAGMA application_id`` of every index file ("LEXI").
APPLICATION_ID = 0x4C455849
#: ``PRAGMA user_version``: the integer version of :data:`INDEX_FORMAT`.
USER_VERSION = 9
PAGE_SIZE = 4096

FTS_TOKENIZER = "unicode61 remove_diacritics 2"
#: bm25 weights of ``provision_fts`` columns (title, number, heading, text): lower score = better.
PROVISION_FTS_WEIGHTS = (10.0, 4.0, 6.0, 1.0)
#: bm25 weights of ``work_fts`` columns (identifiers, titles, short_titles, aliases, metadata).
WORK_FTS_WEIGHTS = (12.0, 8.0, 10.0, 10.0, 2.0)

DDL: tuple[str, ...] = (
    """CREATE TABLE stamp(
        k TEXT PRIMARY KEY,
        v TEXT NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE works(
        work_rowid INTEGER PRIMARY KEY,
        work_id TEXT NOT NULL UNIQUE,
        slug TEXT NOT NULL UNIQUE,
        work_identifier TEXT NOT NULL,
        document_type TEXT,
        title TEXT,
        title_language TEXT,
        source_uri TEXT,
        primary_language TEXT,
        languages TEXT NOT NULL
    )""",
    """CREATE TABLE work_names(
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        kind TEXT NOT NULL,
        normalized TEXT NOT NULL,
        value TEXT NOT NULL,
        language TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (work_rowid, kind, normalized, value, language)
    ) WITHOUT ROWID""",
    # format 8: ordered by work (the readers ask a work's names; a name's works come from the in-memory
    # catalogue, which reads the table once at mount), so no second copy of the table indexes it by work.
    # ``work_metadata`` is a view over ``metadata_terms`` (each distinct label once: a EuroVoc concept
    # labels hundreds of works) and ``work_metadata_rows`` (which work carries it, over which dates).
    """CREATE TABLE metadata_terms(
        term_rowid INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        identifier TEXT NOT NULL,
        label TEXT NOT NULL,
        language TEXT NOT NULL DEFAULT '',
        normalized TEXT NOT NULL,
        source_uri TEXT
    )""",
    "CREATE INDEX ix_work_metadata_identifier ON metadata_terms(identifier, label)",
    """CREATE TABLE work_metadata_rows(
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        term_rowid INTEGER NOT NULL REFERENCES metadata_terms(term_rowid),
        first_valid_from TEXT NOT NULL,
        last_valid_from TEXT NOT NULL,
        PRIMARY KEY (work_rowid, term_rowid)
    ) WITHOUT ROWID""",
    "CREATE INDEX ix_work_metadata_term ON work_metadata_rows(term_rowid)",
    """CREATE VIEW work_metadata(
        work_rowid, kind, identifier, label, language, normalized, source_uri, first_valid_from, last_valid_from
    ) AS SELECT r.work_rowid, t.kind, t.identifier, t.label, t.language, t.normalized, t.source_uri,
        r.first_valid_from, r.last_valid_from
    FROM work_metadata_rows r JOIN metadata_terms t ON t.term_rowid = r.term_rowid""",
    """CREATE TRIGGER work_metadata_insert INSTEAD OF INSERT ON work_metadata BEGIN
        INSERT INTO metadata_terms(kind, identifier, label, language, normalized, source_uri)
            SELECT NEW.kind, NEW.identifier, NEW.label, NEW.language, NEW.normalized, NEW.source_uri
            WHERE NOT EXISTS (SELECT 1 FROM metadata_terms WHERE identifier = NEW.identifier AND label = NEW.label
                AND kind = NEW.kind AND language = NEW.language AND normalized = NEW.normalized
                AND source_uri IS NEW.source_uri);
        INSERT INTO work_metadata_rows VALUES (NEW.work_rowid,
            (SELECT term_rowid FROM metadata_terms WHERE identifier = NEW.identifier AND label = NEW.label
                AND kind = NEW.kind AND language = NEW.language AND normalized = NEW.normalized
                AND source_uri IS NEW.source_uri),
            NEW.first_valid_from, NEW.last_valid_from);
    END""",
    """CREATE TABLE versions(
        version_rowid INTEGER PRIMARY KEY,
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        lex_id TEXT NOT NULL UNIQUE,
        version_key TEXT NOT NULL,
        publisher_version_identifier TEXT NOT NULL,
        document_type TEXT,
        valid_from TEXT NOT NULL,
        valid_to TEXT,
        valid_to_convention TEXT NOT NULL,
        end_exclusive TEXT,
        interval_status TEXT NOT NULL,
        valid_time_source TEXT NOT NULL,
        in_force_status TEXT,
        publication_date TEXT,
        withdrawn INTEGER NOT NULL,
        first_observed TEXT,
        record_sha256 TEXT NOT NULL,
        provenance_record_sha256 TEXT,
        document_roles TEXT NOT NULL,
        raw TEXT NOT NULL,
        UNIQUE (work_rowid, version_key)
    )""",
    "CREATE INDEX ix_versions_work ON versions(work_rowid, valid_from)",
    "CREATE INDEX ix_versions_span ON versions(valid_from, end_exclusive)",
    """CREATE TABLE expressions(
        expression_rowid INTEGER PRIMARY KEY,
        version_rowid INTEGER NOT NULL REFERENCES versions(version_rowid),
        language TEXT NOT NULL,
        title TEXT,
        title_short TEXT,
        source_uri TEXT,
        text_available INTEGER NOT NULL,
        text_reason TEXT,
        text_url TEXT,
        text_state TEXT NOT NULL,
        gap_reason TEXT,
        profile TEXT,
        evidence_sha256 TEXT,
        evidence_file TEXT,
        provision_count INTEGER NOT NULL,
        provisions_digest TEXT,
        UNIQUE (version_rowid, language)
    )""",
    # Texts are packed in zlib blocks (``derive/index/textstore.py``); ``texts`` says where each lies,
    # keyed by the 32 bytes of its SHA-256 (readers go through textstore, which speaks hex); ``words``
    # (format 6, in place of the character count) lets ``diff`` price a pair before reading it.
    """CREATE TABLE text_dictionary(
        dictionary BLOB NOT NULL
    )""",
    """CREATE TABLE text_blocks(
        block_rowid INTEGER PRIMARY KEY,
        body BLOB NOT NULL
    )""",
    """CREATE TABLE texts(
        text_sha256 BLOB PRIMARY KEY,
        words INTEGER NOT NULL,
        block_rowid INTEGER NOT NULL REFERENCES text_blocks(block_rowid),
        start INTEGER NOT NULL,
        length INTEGER NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE lexical_states(
        state_rowid INTEGER PRIMARY KEY,
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        language TEXT NOT NULL,
        anchor TEXT NOT NULL,
        text_sha256 TEXT NOT NULL REFERENCES texts(text_sha256),
        type TEXT NOT NULL,
        num TEXT,
        heading TEXT,
        article_key TEXT
    )""",
    # One state per (work, language, anchor, text) by construction (the builder keys its states so);
    # the index leaves the 64-character hash out (format 5: it doubled the hash's bytes).
    "CREATE INDEX ix_states_anchor ON lexical_states(work_rowid, language, anchor)",
    "CREATE INDEX ix_states_article ON lexical_states(article_key, work_rowid)",
    # ``provisions`` is a view over ``provision_rows`` (one row per occurrence, without the columns
    # it shares with others) and ``paths`` (each distinct heading path once): the path of a
    # provision repeats in every version of its work, and its ``text_sha256`` is its lexical
    # state's. Readers and writers see the columns below; the triggers store and remove rows.
    """CREATE TABLE paths(
        path_rowid INTEGER PRIMARY KEY,
        path TEXT NOT NULL
    )""",
    # Format 9: a provision's ``type``, ``num`` and ``heading`` are its lexical state's (the state takes them from
    # the first provision that holds its wording) but where ``own`` says otherwise: bit 1 ``type``, bit 2 ``num``,
    # bit 4 ``heading`` are the row's own values, stored in the column of that name (NULL where the bit is clear).
    # A heading repeated in every version of its work was stored once per version (EUR-Lex: 7 of 19 MB).
    """CREATE TABLE provision_rows(
        expression_rowid INTEGER NOT NULL REFERENCES expressions(expression_rowid),
        seq INTEGER NOT NULL,
        anchor TEXT NOT NULL,
        own INTEGER NOT NULL,
        type TEXT,
        num TEXT,
        heading TEXT,
        path_rowid INTEGER NOT NULL REFERENCES paths(path_rowid),
        article_valid_from TEXT,
        state_rowid INTEGER NOT NULL REFERENCES lexical_states(state_rowid),
        span_start INTEGER,
        span_end INTEGER,
        PRIMARY KEY (expression_rowid, seq)
    ) WITHOUT ROWID""",
    "CREATE INDEX ix_provisions_anchor ON provision_rows(expression_rowid, anchor)",
    "CREATE INDEX ix_provisions_state ON provision_rows(state_rowid)",
    """CREATE VIEW provisions(
        expression_rowid, seq, anchor, type, num, heading, path, article_valid_from, text_sha256, state_rowid,
        span_start, span_end
    ) AS SELECT r.expression_rowid, r.seq, r.anchor,
        CASE WHEN r.own & 1 THEN r.type ELSE s.type END, CASE WHEN r.own & 2 THEN r.num ELSE s.num END,
        CASE WHEN r.own & 4 THEN r.heading ELSE s.heading END,
        (SELECT h.path FROM paths h WHERE h.path_rowid = r.path_rowid), r.article_valid_from, s.text_sha256,
        r.state_rowid, r.span_start, r.span_end
    FROM provision_rows r LEFT JOIN lexical_states s ON s.state_rowid = r.state_rowid""",
    """CREATE TRIGGER provisions_insert INSTEAD OF INSERT ON provisions BEGIN
        SELECT RAISE(ABORT, 'provision text is not its lexical state''s')
            WHERE NOT EXISTS (SELECT 1 FROM lexical_states WHERE state_rowid = NEW.state_rowid
                AND text_sha256 IS NEW.text_sha256);
        INSERT INTO paths(path) SELECT NEW.path WHERE NOT EXISTS (SELECT 1 FROM paths WHERE path = NEW.path);
        INSERT INTO provision_rows SELECT NEW.expression_rowid, NEW.seq, NEW.anchor,
            (NEW.type IS NOT s.type) + 2 * (NEW.num IS NOT s.num) + 4 * (NEW.heading IS NOT s.heading),
            CASE WHEN NEW.type IS NOT s.type THEN NEW.type END, CASE WHEN NEW.num IS NOT s.num THEN NEW.num END,
            CASE WHEN NEW.heading IS NOT s.heading THEN NEW.heading END,
            (SELECT path_rowid FROM paths WHERE path = NEW.path), NEW.article_valid_from, NEW.state_rowid,
            NEW.span_start, NEW.span_end
            FROM lexical_states s WHERE s.state_rowid = NEW.state_rowid;
    END""",
    # ``citations`` is a view over ``citation_rows`` (one row per occurrence) and ``cites`` (each
    # distinct link once: a provision's links repeat in every version that keeps its wording).
    """CREATE TABLE cites(
        cite_rowid INTEGER PRIMARY KEY,
        anchor TEXT NOT NULL,
        href TEXT NOT NULL,
        label TEXT,
        target_work_id TEXT,
        target_held INTEGER NOT NULL,
        resolution TEXT NOT NULL
    )""",
    "CREATE INDEX ix_citations_target ON cites(target_work_id)",
    """CREATE TABLE citation_rows(
        expression_rowid INTEGER NOT NULL REFERENCES expressions(expression_rowid),
        seq INTEGER NOT NULL,
        cite_rowid INTEGER NOT NULL REFERENCES cites(cite_rowid),
        PRIMARY KEY (expression_rowid, seq)
    ) WITHOUT ROWID""",
    "CREATE INDEX ix_citation_rows_cite ON citation_rows(cite_rowid)",
    """CREATE VIEW citations(
        expression_rowid, seq, anchor, href, label, target_work_id, target_held, resolution
    ) AS SELECT r.expression_rowid, r.seq, c.anchor, c.href, c.label, c.target_work_id, c.target_held, c.resolution
    FROM citation_rows r JOIN cites c ON c.cite_rowid = r.cite_rowid""",
    """CREATE TRIGGER citations_insert INSTEAD OF INSERT ON citations BEGIN
        INSERT INTO cites(anchor, href, label, target_work_id, target_held, resolution)
            SELECT NEW.anchor, NEW.href, NEW.label, NEW.target_work_id, NEW.target_held, NEW.resolution
            WHERE NOT EXISTS (SELECT 1 FROM cites WHERE href = NEW.href AND anchor = NEW.anchor
                AND label IS NEW.label AND target_work_id IS NEW.target_work_id
                AND target_held = NEW.target_held AND resolution = NEW.resolution);
        INSERT INTO citation_rows VALUES (NEW.expression_rowid, NEW.seq,
            (SELECT cite_rowid FROM cites WHERE href = NEW.href AND anchor = NEW.anchor
                AND label IS NEW.label AND target_work_id IS NEW.target_work_id
                AND target_held = NEW.target_held AND resolution = NEW.resolution));
    END""",
    """CREATE TABLE gaps(
        lex_id TEXT NOT NULL,
        language TEXT NOT NULL,
        gap TEXT NOT NULL,
        reason TEXT,
        evidence_sha256 TEXT,
        PRIMARY KEY (lex_id, language, gap)
    ) WITHOUT ROWID""",
    # ``provision_states`` is a view over ``provision_state_rows``, which names each wording by its
    # lexical state (same work, language, anchor and text) instead of repeating its SHA-256.
    """CREATE TABLE provision_state_rows(
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        language TEXT NOT NULL,
        anchor TEXT NOT NULL,
        seq INTEGER NOT NULL,
        valid_from TEXT NOT NULL,
        end_exclusive TEXT,
        state_rowid INTEGER NOT NULL REFERENCES lexical_states(state_rowid),
        first_version_rowid INTEGER NOT NULL,
        last_version_rowid INTEGER NOT NULL,
        versions INTEGER NOT NULL,
        article_valid_from TEXT,
        PRIMARY KEY (work_rowid, language, anchor, seq)
    ) WITHOUT ROWID""",
    """CREATE VIEW provision_states(
        work_rowid, language, anchor, seq, valid_from, end_exclusive, text_sha256, first_version_rowid,
        last_version_rowid, versions, article_valid_from
    ) AS SELECT r.work_rowid, r.language, r.anchor, r.seq, r.valid_from, r.end_exclusive,
        (SELECT s.text_sha256 FROM lexical_states s WHERE s.state_rowid = r.state_rowid), r.first_version_rowid,
        r.last_version_rowid, r.versions, r.article_valid_from
    FROM provision_state_rows r""",
    """CREATE TRIGGER provision_states_insert INSTEAD OF INSERT ON provision_states BEGIN
        INSERT INTO provision_state_rows VALUES (NEW.work_rowid, NEW.language, NEW.anchor, NEW.seq, NEW.valid_from,
            NEW.end_exclusive, COALESCE((SELECT state_rowid FROM lexical_states WHERE work_rowid = NEW.work_rowid
                AND language = NEW.language AND anchor = NEW.anchor AND text_sha256 = NEW.text_sha256),
                RAISE(ABORT, 'provision state without its lexical state')),
            NEW.first_version_rowid, NEW.last_version_rowid, NEW.versions, NEW.article_valid_from);
    END""",
    # Format 9: ``anchor_events`` is a view over ``anchor_event_rows``, which names an event's wording by its lexical
    # state (the anchor's state with that text: every event's anchor held that wording in one of the two versions)
    # instead of repeating its 64-character hash; an ``INSTEAD OF INSERT`` trigger looks the state up.
    """CREATE TABLE anchor_event_rows(
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        language TEXT NOT NULL,
        seq INTEGER NOT NULL,
        version_rowid INTEGER NOT NULL,
        event TEXT NOT NULL,
        anchor TEXT NOT NULL,
        from_anchor TEXT,
        state_rowid INTEGER REFERENCES lexical_states(state_rowid),
        PRIMARY KEY (work_rowid, language, seq)
    ) WITHOUT ROWID""",
    """CREATE VIEW anchor_events(
        work_rowid, language, seq, version_rowid, event, anchor, from_anchor, text_sha256
    ) AS SELECT r.work_rowid, r.language, r.seq, r.version_rowid, r.event, r.anchor, r.from_anchor,
        (SELECT s.text_sha256 FROM lexical_states s WHERE s.state_rowid = r.state_rowid)
    FROM anchor_event_rows r""",
    """CREATE TRIGGER anchor_events_insert INSTEAD OF INSERT ON anchor_events BEGIN
        INSERT INTO anchor_event_rows VALUES (NEW.work_rowid, NEW.language, NEW.seq, NEW.version_rowid, NEW.event,
            NEW.anchor, NEW.from_anchor, CASE WHEN NEW.text_sha256 IS NOT NULL THEN
                COALESCE((SELECT state_rowid FROM lexical_states WHERE work_rowid = NEW.work_rowid
                    AND language = NEW.language AND anchor = NEW.anchor AND text_sha256 = NEW.text_sha256),
                    RAISE(ABORT, 'anchor event without its lexical state')) END);
    END""",
    """CREATE TABLE events(
        version_rowid INTEGER NOT NULL REFERENCES versions(version_rowid),
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        observed_from TEXT NOT NULL,
        scope TEXT,
        detail TEXT,
        PRIMARY KEY (version_rowid, seq)
    ) WITHOUT ROWID""",
    """CREATE TABLE observations(
        expression_rowid INTEGER NOT NULL REFERENCES expressions(expression_rowid),
        seq INTEGER NOT NULL,
        file TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER,
        source_uri TEXT,
        retrieved_at TEXT,
        format TEXT,
        held_elsewhere INTEGER NOT NULL,
        PRIMARY KEY (expression_rowid, seq)
    ) WITHOUT ROWID""",
    """CREATE TABLE work_inputs(
        work_rowid INTEGER PRIMARY KEY REFERENCES works(work_rowid),
        slug TEXT NOT NULL,
        inputs_sha256 TEXT NOT NULL,
        excluded_empty_provisions INTEGER NOT NULL,
        fts_titles TEXT NOT NULL
    )""",
    f"""CREATE VIRTUAL TABLE provision_fts USING fts5(
        title, number, heading, text,
        content='', tokenize='{FTS_TOKENIZER}'
    )""",
    "CREATE VIRTUAL TABLE provision_vocab USING fts5vocab(provision_fts, 'row')",
    """CREATE TABLE vocabulary(
        term TEXT PRIMARY KEY,
        docs INTEGER NOT NULL
    ) WITHOUT ROWID""",
    f"""CREATE VIRTUAL TABLE work_fts USING fts5(
        identifiers, titles, short_titles, aliases, metadata,
        content='', tokenize='{FTS_TOKENIZER}'
    )""",
    *SERVING_DDL,
)

#: FTS5 ``hashsize`` of ``provision_fts`` (SQLite's default: 1 MiB): how many bytes of pending terms a
#: build holds in memory before it writes them as a segment. A full build inserts every provision in
#: one transaction, so with the default it wrote hundreds of small segments that FTS5's automerge
#: merged again and again before ``optimize`` merged them into one; with 32 MiB it writes a few large
#: ones (the Legilux insert measured 15.0 -> 7.7 CPU-s; the merged index holds the same terms and rows,
#: its data the same size within a few hundred bytes: answers identical, the file's FTS pages not).
#: Stored in the table's ``provision_fts_config`` (what an incremental build of the file uses too).
FTS_HASHSIZE = 32 * 1024 * 1024
#: Statements run right after :data:`DDL` in a new index file.
FTS_SETTINGS: tuple[str, ...] = (
    f"INSERT INTO provision_fts(provision_fts, rank) VALUES('hashsize', {FTS_HASHSIZE})",
)

# --- search: Snowball stems of the vocabulary (derive/index/analysis.py) ---
#: ``term_stems``: every ``vocabulary`` word under its Snowball stem per language (en, fr, de). A
#: function of ``vocabulary`` (not in the digest); optional for readers (an index without it gets
#: no stem alternatives).
TERM_STEMS_DDL = """CREATE TABLE term_stems(
        language TEXT NOT NULL,
        stem TEXT NOT NULL,
        term TEXT NOT NULL,
        docs INTEGER NOT NULL,
        PRIMARY KEY (language, stem, term)
    ) WITHOUT ROWID"""
DDL = (*DDL, TERM_STEMS_DDL)
# --- end search ---

#: Indexes only the build's triggers use (finding a stored path or link), created with the schema and
#: by an incremental build, dropped before the file is sealed: no reader looks a path or link up.
BUILD_INDEXES: dict[str, str] = {
    "ix_paths_path": "CREATE INDEX IF NOT EXISTS ix_paths_path ON paths(path)",
    "ix_cites_href": "CREATE INDEX IF NOT EXISTS ix_cites_href ON cites(href, anchor)",
}
DDL = (*DDL, *BUILD_INDEXES.values())

#: Build bookkeeping for incremental builds (``work_inputs``): not content, not in the digest, not
#: required by readers.
BUILD_TABLES: tuple[str, ...] = ("work_inputs",)

#: ``work_digests`` (format 7): each work's digest of its rows in the content tables
#: (:func:`derive.index.digest.work_digests`), written by the build when it digests the file, so that an
#: incremental build digests only the works it rebuilt. Not content, not in the digest (the combined
#: digest is made of these values, and ``lex index verify`` recomputes every one of them).
WORK_DIGESTS_DDL = """CREATE TABLE work_digests(
        work_rowid INTEGER PRIMARY KEY,
        sha256 TEXT NOT NULL
    )"""
DDL = (*DDL, WORK_DIGESTS_DDL)

#: Content tables in digest order, each with the ORDER BY that makes its rows canonical.
DIGEST_ORDER: tuple[tuple[str, str], ...] = (
    ("works", "work_rowid"),
    ("work_names", "work_rowid, kind, normalized, value, language"),
    ("work_metadata", "work_rowid, kind, identifier, label, language"),
    ("versions", "version_rowid"),
    ("expressions", "expression_rowid"),
    ("texts", "text_sha256"),
    ("lexical_states", "state_rowid"),
    ("provisions", "expression_rowid, seq"),
    ("citations", "expression_rowid, seq"),
    ("gaps", "lex_id, language, gap"),
    ("provision_states", "work_rowid, language, anchor, seq"),
    ("anchor_events", "work_rowid, language, seq"),
    ("events", "version_rowid, seq"),
    ("observations", "expression_rowid, seq"),
)

#: Stamp counters that must equal ``COUNT(*)`` of their table (checked at mount).
COUNTED_TABLES: tuple[str, ...] = tuple(name for name, _ in DIGEST_ORDER)

REQUIRED_TABLES: frozenset[str] = frozenset(
    {"stamp", "text_dictionary", "text_blocks", "provision_fts", "work_fts", "provision_vocab", "vocabulary", *SERVING_TABLES, *COUNTED_TABLES}
)

#: Words kept in ``vocabulary`` (the fuzzy-expansion targets): letters only, at least this long.
VOCABULARY_MIN_LENGTH = 4

#: Stamp keys every index carries (more may be present).
REQUIRED_STAMP_KEYS: tuple[str, ...] = (
    "schema", "publisher", "publisher_name", "jurisdiction", "timeline_semantics",
    "valid_to_convention", "built_at", "content_digest", "corpus_manifest_sha256",
    "dataset_sha256", "text_public", "fts_tokenizer", "text_normalization",
)


def count_key(table: str) -> str:
    """The stamp key holding the row count of ``table``."""
    return f"count.{table}"


#: Where a counted view's rows come from when that is one stored table, row for row: ``provisions`` is
#: ``provision_rows`` left-joined to the lexical state of each row by its integer key (a join that neither adds
#: nor drops a row), so its rows are counted without visiting every state (format 9; 14 ms of a Legilux mount).
COUNTED_ROWS: dict[str, str] = {"provisions": "provision_rows"}


def count_sql(table: str) -> str:
    """``SELECT COUNT(*)`` of a counted table (:data:`COUNTED_ROWS` for a view that is one table's rows)."""
    return f"SELECT COUNT(*) FROM {COUNTED_ROWS.get(table, table)}"
