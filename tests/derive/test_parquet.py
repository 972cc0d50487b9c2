"""The Parquet form of the dataset (docs/derive.md §6.5): types, validity, metadata, row groups, states."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from derive import parquet as P
from derive.cache import derivation_digest
from derive.dataset import build_dataset
from legal.canonical import digest
from legal.heap import release_free_heap


def test_dates_are_date32_and_categoricals_dictionaries(lu_dataset):
    schema = pq.read_schema(lu_dataset[0] / "provisions.parquet")
    for name in ("valid_from", "valid_to", "article_valid_from", *P.VALIDITY_COLUMNS):
        assert schema.field(name).type == pa.date32(), name
    for name in P.CATEGORICAL:
        assert pa.types.is_dictionary(schema.field(name).type), name


def test_one_validity_convention_for_both_publishers(eu_dataset, lu_dataset):
    for out, convention in ((eu_dataset[0], "inclusive"), (lu_dataset[0], "exclusive")):
        rows = pq.read_table(out / "provisions.parquet", columns=[
            "valid_to", "valid_to_convention", *P.VALIDITY_COLUMNS]).to_pylist()
        ended = [r for r in rows if r["valid_to"] is not None]
        assert ended and {r["valid_to_convention"] for r in rows} == {convention}
        one = dt.timedelta(days=1)
        for r in ended:
            assert r["valid_to_exclusive"] - r["valid_to_inclusive"] == one
            verbatim = r["valid_to_inclusive"] if convention == "inclusive" else r["valid_to_exclusive"]
            assert verbatim == r["valid_to"]
        assert all(r["valid_to_exclusive"] is None for r in rows if r["valid_to"] is None)


def test_metadata_names_corpus_code_and_licence(imported_trees, lu_dataset):
    manifest = imported_trees["lu"].manifest()
    for table in ("provisions", "states"):
        meta = {k.decode(): v.decode() for k, v in pq.read_schema(lu_dataset[0] / f"{table}.parquet").metadata.items()}
        assert meta["lex:contract"] == P.DATASET_CONTRACT and meta["lex:table"] == table
        assert meta["lex:corpus_records_digest"] == manifest["records_digest"]
        assert meta["lex:corpus_manifest_sha256"] == digest(manifest)
        assert meta["lex:derivation_digest"] == derivation_digest()
        assert json.loads(meta["lex:publishers"]) == ["lu-legilux"]
        assert json.loads(meta["lex:licence"])["lu-legilux"]["licence"] == "CC-BY-4.0"
        assert meta["lex:generator"].startswith("lex-evidence ")


def test_row_groups_are_whole_works_and_large(eu_dataset, imported_trees, tmp_path, monkeypatch):
    assert pq.ParquetFile(eu_dataset[0] / "provisions.parquet").metadata.num_row_groups == 1
    out = tmp_path / "small"
    original = P.ParquetSink.__init__

    def small(self: P.ParquetSink, *args: object, **kwargs: object) -> None:
        original(self, *args, rows=500, cut_before=bool(kwargs.get("cut_before")))  # type: ignore[arg-type]

    monkeypatch.setattr(P.ParquetSink, "__init__", small)
    build_dataset(imported_trees["eu"], out, use_cache=False)
    small_file = pq.ParquetFile(out / "provisions.parquet")
    groups = [small_file.metadata.row_group(i) for i in range(small_file.metadata.num_row_groups)]
    works = [small_file.read_row_group(i, columns=["work_id"]).column(0).to_pylist() for i in range(len(groups))]
    assert len(groups) > 1
    assert all(not (set(a) & set(b)) for a, b in itertools.pairwise(works))  # a work never spans two groups
    # cut before the work that would pass the bound (ADR 0101): a group of several works stays
    # within it, and the next group's first work would have taken it past
    for rows, following in itertools.pairwise(works):
        assert len(rows) <= 500 or len(set(rows)) == 1
        assert len(rows) + following.count(following[0]) > 500
    assert small_file.read().to_pylist() == pq.read_table(eu_dataset[0] / "provisions.parquet").to_pylist()


def test_states_are_the_history_files(eu_dataset):
    out = eu_dataset[0]
    states = pq.read_table(out / "states.parquet").to_pylist()
    expected = 0
    for path in sorted((out / "history").rglob("*.json")):
        doc = json.loads(path.read_bytes())
        expected += sum(len(runs) for anchors in doc["anchors_by_language"].values() for runs in anchors.values())
    assert len(states) == expected
    keys = [(s["work_id"], s["language"], s["anchor"], s["valid_from"]) for s in states]
    assert keys == sorted(keys)
    art92 = [s for s in states if s["work_id"] == "eu-eurlex:32013r0575" and s["language"] == "en"
             and s["anchor"] == "art_92"]
    assert [s["state"] for s in art92] == [1, 2, 3]
    assert [s["previous_text_sha256"] for s in art92] == [None, art92[0]["text_sha256"], art92[1]["text_sha256"]]
    provisions = set(pq.read_table(out / "provisions.parquet", columns=["provision_id"]).column(0).to_pylist())
    assert all(s["first_provision_id"] in provisions for s in states)


def test_empty_dataset_files_are_valid(tmp_path: Path):
    sink = P.ParquetSink(tmp_path / "x.parquet", pa.schema([("valid_to", pa.string())]),
                         pa.schema([("valid_to", pa.date32())]), P.key_value_metadata("provisions", {}))
    sink.close()
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 0


def _row_tables(dataset: Path) -> list[tuple[pa.Table, int]]:
    """The dataset's provisions per work as the writer gets them (row schema), with their JSONL size."""
    from derive import rows as R

    tables: list[tuple[pa.Table, int]] = []
    lines = (dataset / "provisions.jsonl").read_bytes().splitlines(keepends=True)
    for _work, group in itertools.groupby(lines, key=lambda line: json.loads(line)["work_id"]):
        chunk = list(group)
        rows = [json.loads(line) for line in chunk]
        # several record batches per work, as the encoder hands them over
        batches = [pa.RecordBatch.from_pylist(rows[i:i + 7], schema=R.SCHEMA) for i in range(0, len(rows), 7)]
        tables.append((pa.Table.from_batches(batches), sum(len(line) for line in chunk)))
    return tables


def test_sink_bytes_do_not_depend_on_how_rows_are_held(eu_dataset, lu_dataset, tmp_path, monkeypatch):
    """The sink copies rows out of what they came in every COMPACT_BYTES and builds string columns
    in place: the file is the bytes of one write of the concatenated, contiguous rows."""
    from derive import rows as R

    for name, dataset in (("eu", eu_dataset[0]), ("lu", lu_dataset[0])):
        tables = _row_tables(dataset)
        schema = P.parquet_schema(R.SCHEMA)
        meta = P.key_value_metadata("provisions", {})
        reference = tmp_path / f"{name}-reference.parquet"
        whole = pa.concat_tables([t for t, _ in tables]).combine_chunks()
        with pq.ParquetWriter(reference, schema.with_metadata(meta), compression="zstd", use_dictionary=True,
                              write_statistics=True, store_schema=True) as writer:
            writer.write_table(P.to_parquet(whole, schema.with_metadata(meta)), row_group_size=whole.num_rows)
        for compact in (1, 50_000, 1 << 40):  # after every work, every few works, only at the write
            monkeypatch.setattr(P, "COMPACT_BYTES", compact)
            out = tmp_path / f"{name}-{compact}.parquet"
            sink = P.ParquetSink(out, R.SCHEMA, schema, meta)
            for table, size in tables:
                sink.add(table, size)
            sink.close()
            assert out.read_bytes() == reference.read_bytes(), (name, compact)


def _expected_groups(sizes: list[int], bound: int, cut_before: bool) -> list[int]:
    """The works per row group of a sink bounded at ``bound`` bytes (rows never bound here)."""
    groups: list[int] = []
    works = held = 0
    for size in sizes:
        if cut_before and works and held + size > bound:
            groups.append(works)
            works = held = 0
        works, held = works + 1, held + size
        if held >= bound:
            groups.append(works)
            works = held = 0
    return groups + ([works] if works else [])


def test_a_group_is_cut_before_the_work_that_would_pass_its_bound(lu_dataset, tmp_path):
    """ADR 0101: the provisions sink writes its group before adding a work whose rows would take it
    past the bound (a group then passes it only when one work does), and after a work that reaches
    it, as before; the rows are the same, only the groups' boundaries move."""
    from derive import rows as R

    tables = _row_tables(lu_dataset[0])
    sizes = [size for _, size in tables]
    bound = max(sizes) + sum(sorted(sizes)[-3:-1])  # several works a group, some cut each way
    schema, meta = P.parquet_schema(R.SCHEMA), P.key_value_metadata("provisions", {})
    read = {}
    for cut_before in (False, True):
        out = tmp_path / f"cut-{cut_before}.parquet"
        sink = P.ParquetSink(out, R.SCHEMA, schema, meta, size=bound, cut_before=cut_before)
        for table, size in tables:
            sink.add(table, size)
        sink.close()
        found = pq.ParquetFile(out)
        works = [len(set(found.read_row_group(i, columns=["work_id"]).column(0).to_pylist()))
                 for i in range(found.metadata.num_row_groups)]
        assert works == _expected_groups(sizes, bound, cut_before)
        read[cut_before] = found.read()
    assert _expected_groups(sizes, bound, True) != _expected_groups(sizes, bound, False)
    # the same rows (each group has its own dictionaries: compared decoded)
    assert read[True].to_pylist() == read[False].to_pylist()
    # a work larger than the bound is a group of its own, cut before and after it
    assert _expected_groups([3, 10, 2, 2], 5, True) == [1, 1, 2]
    assert _expected_groups([3, 10, 2, 2], 5, False) == [2, 2]


def test_string_column_is_the_concatenation():
    pieces = [pa.array(["a", None, "ccc"]), pa.array([], pa.string()), pa.array(["", "éé", None, "x" * 70_000]).slice(1, 3),
              pa.array([None, None], pa.string()), pa.array(["z"] * 5000)]
    column = P.StringColumn()
    for piece in pieces:
        column.append(piece)
    got = column.finish()
    got.validate(full=True)
    want = pa.concat_arrays(pieces)
    assert got.equals(want) and got.null_count == want.null_count == 4
    empty = P.StringColumn().finish()
    assert len(empty) == 0 and empty.type == pa.string()


def test_a_string_column_grows_by_a_quarter_not_double():
    # resize fills what it adds: every byte of slack is resident, so it stays a fraction of the values
    column = P.StringColumn()
    for _ in range(200):
        column.append(pa.array(["x" * 5000] * 10))
    assert column.size == 10_000_000
    assert column.size <= len(column.data) <= column.size * (1 + 1 / P.GROWTH) + (1 << 16)
    assert len(column.finish()) == 2000


def test_release_unused_is_harmless():
    kept = pa.array(["a" * 100] * 1000)
    P.release_unused()  # malloc_trim and Arrow's pool release_unused, or nothing where there is none
    assert kept.to_pylist()[-1] == "a" * 100


def test_release_free_heap_is_harmless():
    held = [bytearray(1000) for _ in range(1000)]
    del held[::2]
    release_free_heap()  # glibc's malloc_trim, or nothing where there is none
    assert all(len(b) == 1000 for b in held)


def _whole_file(schema: pa.Schema, groups: list[pa.Table]) -> bytes:
    """What Arrow's writer writes for ``groups`` in one go, with the dataset's options."""
    sink = pa.BufferOutputStream()
    writer = pq.ParquetWriter(sink, schema, **P.WRITER_OPTIONS)
    for group in groups:
        writer.write_table(group, row_group_size=group.num_rows)
    writer.close()
    return bytes(sink.getvalue().to_pybytes())


def _table() -> pa.Table:
    n = 3000
    return pa.table({
        "kind": pa.array([f"k{i % 7}" for i in range(n)]).dictionary_encode(),
        "number": pa.array([None if i % 11 == 0 else i for i in range(n)], pa.int64()),
        "text": pa.array([("word " * (i % 37)) or None for i in range(n)]),
        "day": pa.array([dt.date(2000, 1, 1) + dt.timedelta(days=i % 400) for i in range(n)]),
    })


def test_the_footer_reads_and_writes_back_the_bytes_arrow_wrote():
    from derive import footer as F

    table = _table()
    data = _whole_file(table.schema, [table.slice(0, 1000), table.slice(1000)])
    raw = F.footer_bytes(data)
    assert F.encode(F.decode(raw)) == raw
    assert F.group_span(F.row_groups(F.decode(raw))[0])[0] == 4


def test_groups_written_apart_or_copied_are_the_bytes_of_one_writer(tmp_path):
    """A file assembled from row groups encoded on their own, then one copied from that file into
    another, is byte for byte what Arrow's writer writes for the same groups in one go."""
    table = _table()
    schema = table.schema.with_metadata({b"lex:table": b"test"})
    groups = [table.slice(0, 1200), table.slice(1200, 1), table.slice(1201)]
    first = P.GroupWriter(tmp_path / "a.parquet", schema)
    for group in groups:
        first.write_table(group)
    first.close()
    assert (tmp_path / "a.parquet").read_bytes() == _whole_file(schema, groups)
    empty = P.GroupWriter(tmp_path / "empty.parquet", schema)
    empty.close()
    assert (tmp_path / "empty.parquet").read_bytes() == _whole_file(schema, [])
    # the same rows again: the first two groups copied, the last one changed
    (tmp_path / "a.groups.json").write_bytes(P.groups_document(
        ["g0", "g1", "g2"], first.spans, [[(f"w{i}", g.num_rows, 1)] for i, g in enumerate(groups)]))
    previous = P.PreviousGroups(tmp_path / "a.parquet", tmp_path / "a.groups.json")
    changed = table.slice(1201).set_column(1, "number", pa.array(range(3000 - 1201), pa.int64()))
    second = P.GroupWriter(tmp_path / "b.parquet", schema)
    for name, group in (("g0", groups[0]), ("g1", groups[1])):
        found = previous.find(name, group.num_rows)
        assert found is not None
        second.copy_group(*found)
    assert previous.find("g2", 5) is None  # another row count: not that group
    second.write_table(changed)
    second.close()
    previous.close()
    assert second.copied == 2
    assert (tmp_path / "b.parquet").read_bytes() == _whole_file(schema, [*groups[:2], changed])
    assert pq.read_table(tmp_path / "b.parquet").equals(
        pa.concat_tables([*groups[:2], changed]).replace_schema_metadata(schema.metadata))


def test_a_group_whose_bytes_moved_on_is_not_copied(tmp_path):
    table = _table()
    writer = P.GroupWriter(tmp_path / "a.parquet", table.schema)
    writer.write_table(table)
    writer.close()
    start, size, crc = writer.spans[0]
    members = [[("w", table.num_rows, 1)]]
    (tmp_path / "a.groups.json").write_bytes(P.groups_document(["g"], [(start, size, crc ^ 1)], members))
    assert P.PreviousGroups(tmp_path / "a.parquet", tmp_path / "a.groups.json").find("g", table.num_rows) is None
    (tmp_path / "a.groups.json").write_bytes(P.groups_document(["g"], [(start + 1, size, crc)], members))
    assert P.PreviousGroups(tmp_path / "a.parquet", tmp_path / "a.groups.json").find("g", table.num_rows) is None
    (tmp_path / "a.groups.json").write_bytes(b"not json")
    assert P.PreviousGroups(tmp_path / "a.parquet", tmp_path / "a.groups.json").find("g", table.num_rows) is None
