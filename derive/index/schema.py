"""The index format ``lex-evidence-index/2``: DDL, table order, digest order, read-side constants.

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

INDEX_FORMAT = "lex-evidence-index/2"
#: ``PRAGMA application_id`` of every index file ("LEXI").
APPLICATION_ID = 0x4C455849
#: ``PRAGMA user_version``: the integer version of :data:`INDEX_FORMAT`.
USER_VERSION = 2
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
        PRIMARY KEY (normalized, kind, work_rowid, value, language)
    ) WITHOUT ROWID""",
    "CREATE INDEX ix_work_names_work ON work_names(work_rowid, kind)",
    """CREATE TABLE work_metadata(
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        kind TEXT NOT NULL,
        identifier TEXT NOT NULL,
        label TEXT NOT NULL,
        language TEXT NOT NULL DEFAULT '',
        normalized TEXT NOT NULL,
        source_uri TEXT,
        first_valid_from TEXT NOT NULL,
        last_valid_from TEXT NOT NULL,
        PRIMARY KEY (work_rowid, kind, identifier, label, language)
    ) WITHOUT ROWID""",
    "CREATE INDEX ix_work_metadata_identifier ON work_metadata(identifier)",
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
    """CREATE TABLE texts(
        text_sha256 TEXT PRIMARY KEY,
        encoding TEXT NOT NULL,
        characters INTEGER NOT NULL,
        body BLOB NOT NULL
    )""",
    """CREATE TABLE lexical_states(
        state_rowid INTEGER PRIMARY KEY,
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        language TEXT NOT NULL,
        anchor TEXT NOT NULL,
        text_sha256 TEXT NOT NULL REFERENCES texts(text_sha256),
        type TEXT NOT NULL,
        num TEXT,
        heading TEXT,
        article_key TEXT,
        UNIQUE (work_rowid, language, anchor, text_sha256)
    )""",
    "CREATE INDEX ix_states_article ON lexical_states(article_key, work_rowid)",
    """CREATE TABLE provisions(
        expression_rowid INTEGER NOT NULL REFERENCES expressions(expression_rowid),
        seq INTEGER NOT NULL,
        anchor TEXT NOT NULL,
        type TEXT NOT NULL,
        num TEXT,
        heading TEXT,
        path TEXT NOT NULL,
        article_valid_from TEXT,
        text_sha256 TEXT NOT NULL REFERENCES texts(text_sha256),
        state_rowid INTEGER NOT NULL REFERENCES lexical_states(state_rowid),
        span_start INTEGER,
        span_end INTEGER,
        PRIMARY KEY (expression_rowid, seq)
    ) WITHOUT ROWID""",
    "CREATE INDEX ix_provisions_anchor ON provisions(expression_rowid, anchor)",
    "CREATE INDEX ix_provisions_state ON provisions(state_rowid)",
    """CREATE TABLE citations(
        expression_rowid INTEGER NOT NULL REFERENCES expressions(expression_rowid),
        seq INTEGER NOT NULL,
        anchor TEXT NOT NULL,
        href TEXT NOT NULL,
        label TEXT,
        target_work_id TEXT,
        target_held INTEGER NOT NULL,
        resolution TEXT NOT NULL,
        PRIMARY KEY (expression_rowid, seq)
    ) WITHOUT ROWID""",
    "CREATE INDEX ix_citations_target ON citations(target_work_id)",
    """CREATE TABLE gaps(
        lex_id TEXT NOT NULL,
        language TEXT NOT NULL,
        gap TEXT NOT NULL,
        reason TEXT,
        evidence_sha256 TEXT,
        PRIMARY KEY (lex_id, language, gap)
    ) WITHOUT ROWID""",
    """CREATE TABLE provision_states(
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        language TEXT NOT NULL,
        anchor TEXT NOT NULL,
        seq INTEGER NOT NULL,
        valid_from TEXT NOT NULL,
        end_exclusive TEXT,
        text_sha256 TEXT NOT NULL,
        first_version_rowid INTEGER NOT NULL,
        last_version_rowid INTEGER NOT NULL,
        versions INTEGER NOT NULL,
        article_valid_from TEXT,
        PRIMARY KEY (work_rowid, language, anchor, seq)
    ) WITHOUT ROWID""",
    """CREATE TABLE anchor_events(
        work_rowid INTEGER NOT NULL REFERENCES works(work_rowid),
        language TEXT NOT NULL,
        seq INTEGER NOT NULL,
        version_rowid INTEGER NOT NULL,
        event TEXT NOT NULL,
        anchor TEXT NOT NULL,
        from_anchor TEXT,
        text_sha256 TEXT,
        PRIMARY KEY (work_rowid, language, seq)
    ) WITHOUT ROWID""",
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

#: Build bookkeeping for incremental builds (``work_inputs``): not content, not in the digest, not
#: required by readers.
BUILD_TABLES: tuple[str, ...] = ("work_inputs",)

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
    {"stamp", "provision_fts", "work_fts", "provision_vocab", "vocabulary", *SERVING_TABLES, *COUNTED_TABLES}
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
