"""An enumeration's listing spilled to a file: its versions and their manifestations read back one at a
time (issue #13, ADR 0083).

An adapter enumerates completely before anything is planned (all or nothing), so a run used to hold
the whole listing — every :class:`corpus_tree.model.VersionInput`, its expressions and the
:class:`publishers.protocol.Manifestation` of each file to fetch — from the enumeration to the last
version applied: the part of the ingest's peak memory that grew with the corpus. :class:`SpilledListing`
writes each version, with the manifestations listed for its publisher version identifier, to an
unnamed file in the run's staging directory as soon as the adapter returns, and the run holds only
an offset per version (8 bytes). The plan, the writer's validation and its apply read the versions
back in order, each made again as an equal value and dropped once used.

Values that the versions of one work share (the ``publisher_metadata`` tuple an adapter gives every
version of a work) are pickled by reference: they stay in memory, once each, and a version read back
holds the very object (so the writer's memo of their canonical form still finds the repeats).

A listing can also be spilled **as it is listed** (:meth:`SpilledListing.streamed`, ADR 0126): an adapter
that hands each version over as it builds it (:class:`publishers.protocol.ListingAdapter`) never holds
its listing whole, and the spill holds, while it is written, an 8-byte digest per version of its
publisher version identifier. Its shared values are spilled too, each once, into a second unnamed file
(the versions of a work, consecutive, read back share the one value last read). :meth:`SpilledListing.seal` then gives every version the manifestations of
*every* version of its publisher version identifier, in the listing's order — what the whole form's
grouping gives — rewriting the file only if two versions share one (the digests sorted once; a
collision only costs the exact check).
"""

from __future__ import annotations

import hashlib
import io
import itertools
import os
import pickle
import tempfile
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, overload

from corpus_tree.model import VersionInput
from publishers.protocol import Manifestation

#: a spilled version: the version and the manifestations listed for it, in the listing's order
Spilled = tuple[VersionInput, tuple[Manifestation, ...]]


class _Pickler(pickle.Pickler):
    def __init__(self, file: IO[bytes], shared: dict[int, int]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.shared = shared

    def persistent_id(self, obj: Any) -> int | None:
        return self.shared.get(id(obj))


class _DiskTable:
    """The shared values of a listing spilled as it is listed, each pickled by value into an unnamed file
    in ``staging`` when first met (ADR 0126): not held for the run. The value last read is kept, so the
    versions of a work — consecutive in the listing — read back share one object (the writer's memo of
    its canonical form finds the repeats) and it is read once per work."""

    def __init__(self, staging: Path) -> None:
        self._file = tempfile.TemporaryFile(dir=staging)  # noqa: SIM115 (closed by close())
        self._offsets = array("q", [0])
        self._last: tuple[int, Any] | None = None

    def append(self, value: Any) -> int:
        """Write ``value``; its index."""
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self._file.write(data)
        self._offsets.append(self._offsets[-1] + len(data))
        return len(self._offsets) - 2

    def flush(self) -> None:
        self._file.flush()

    def __getitem__(self, i: int) -> Any:
        last = self._last
        if last is not None and last[0] == i:
            return last[1]
        self._last = None
        start, end = self._offsets[i], self._offsets[i + 1]
        value = pickle.loads(os.pread(self._file.fileno(), end - start, start))
        self._last = (i, value)
        return value

    def close(self) -> None:
        self._last = None
        self._file.close()


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: IO[bytes], table: list[Any] | _DiskTable) -> None:
        super().__init__(file)
        self.table = table

    def persistent_load(self, pid: Any) -> Any:
        return self.table[pid]


class SpilledListing(Sequence[VersionInput]):
    """The versions of a listing, in order, each read back from the spill file when it is reached.

    Iterating reads the versions one at a time and remembers the one last read with its
    manifestations (:meth:`manifestations_of`); indexing reads one version. Equal values, new
    objects, each time: read once per use. :meth:`close` closes the file (the staging directory it
    is in is removed with the run's)."""

    def __init__(self, versions: list[VersionInput], manifestations: Sequence[Manifestation], staging: Path) -> None:
        """Spill ``versions`` (a list the caller hands over: emptied as it is written, each version freed
        once spilled) with ``manifestations`` (each version gets those of its publisher version
        identifier, in their order) into an unnamed file in ``staging``."""
        by_pvid: dict[str, list[Manifestation]] = {}
        for m in manifestations:
            by_pvid.setdefault(m.publisher_version_identifier, []).append(m)
        self._staging = staging
        self._table: list[Any] | _DiskTable = []  # the shared values, pickled by reference
        self._held: Any = None  # streamed: the shared value last written (alive while its id is in ``_shared``)
        self._shared: dict[int, int] = {}  # id of a shared value -> its index in the table (while written)
        self._buffer: io.BytesIO | None = io.BytesIO()
        self._digests = array("Q")  # streamed only: a digest per version's publisher version identifier
        #: what was listed: the versions' expressions and the manifestations (streamed: those appended)
        self.expressions = 0
        self.manifestations_listed = len(manifestations)
        self._file = tempfile.TemporaryFile(dir=staging)  # noqa: SIM115 (closed by close(), or below)
        self._offsets = array("q", [0])
        self._current: tuple[int, VersionInput, tuple[Manifestation, ...]] | None = None
        try:
            versions.reverse()
            while versions:
                v = versions.pop()
                self._write(v, tuple(by_pvid.get(v.publisher_version_identifier, ())))
                del v
            self._file.flush()
        except BaseException:
            self._file.close()
            raise
        self._shared, self._buffer = {}, None  # held no longer than the writing (a streamed one's: till sealed)

    @classmethod
    def streamed(cls, staging: Path) -> SpilledListing:
        """An empty listing in an unnamed file in ``staging``, to which :meth:`append` writes each version
        as it is listed; :meth:`seal` once the listing is complete, before it is read."""
        out = cls([], (), staging)
        out._buffer = io.BytesIO()
        out._table = _DiskTable(staging)
        return out

    def append(self, v: VersionInput, manifestations: tuple[Manifestation, ...]) -> None:
        """Write ``v`` with the manifestations listed for it (a
        :data:`publishers.protocol.ListedSink`)."""
        self._digests.append(_digest(v.publisher_version_identifier))
        self.manifestations_listed += len(manifestations)
        try:
            self._write(v, manifestations)
        except BaseException:
            self._digests.pop()
            raise

    def seal(self) -> None:
        """End a streamed listing: give each version whose publisher version identifier another version
        shares the manifestations of all of them, in the listing's order (as :meth:`__init__` groups them),
        drop what only writing needed, and flush the file."""
        ordered = sorted(self._digests)
        repeated = {a for a, b in itertools.pairwise(ordered) if a == b}
        del ordered
        self._digests = array("Q")
        if repeated:
            self._merge(repeated)
        self._shared, self._buffer, self._held = {}, None, None
        self._flush()

    def _flush(self) -> None:
        self._file.flush()
        if isinstance(self._table, _DiskTable):
            self._table.flush()

    def _write(self, v: VersionInput, manifestations: tuple[Manifestation, ...]) -> None:
        """Append one pickled ``(v, manifestations)`` to the file (its shared metadata by reference)."""
        self.expressions += len(v.expressions)
        metadata = v.publisher_metadata
        if metadata and id(metadata) not in self._shared:
            if isinstance(self._table, _DiskTable):  # streamed: written once per work, not held
                self._shared = {id(metadata): self._table.append(metadata)}
                self._held = metadata
            else:
                self._shared[id(metadata)] = len(self._table)
                self._table.append(metadata)
        del metadata
        buffer = self._buffer
        if buffer is None:
            raise ValueError("a sealed listing takes no more versions")
        buffer.seek(0)
        buffer.truncate()
        _Pickler(buffer, self._shared).dump((v, manifestations))
        self._file.write(buffer.getbuffer())
        self._offsets.append(self._offsets[-1] + buffer.tell())

    def _merge(self, repeated: set[int]) -> None:
        """Rewrite the file with each version of a shared publisher version identifier (its digest in
        ``repeated``; confirmed on the identifiers themselves) given the manifestations of all of them."""
        self._flush()
        groups: dict[str, list[Manifestation]] = {}
        counts: dict[str, int] = {}
        for v, manifestations in self.spilled():
            pvid = v.publisher_version_identifier
            if _digest(pvid) in repeated:
                groups.setdefault(pvid, []).extend(manifestations)
                counts[pvid] = counts.get(pvid, 0) + 1
        merged = {pvid: tuple(ms) for pvid, ms in groups.items() if counts[pvid] > 1}
        del groups, counts
        if not merged:
            return
        old, old_offsets = self._file, self._offsets
        self._file = tempfile.TemporaryFile(dir=self._staging)  # noqa: SIM115 (closed by close())
        self._offsets = array("q", [0])
        try:
            for i in range(len(old_offsets) - 1):
                start, end = old_offsets[i], old_offsets[i + 1]
                data = os.pread(old.fileno(), end - start, start)
                v, _ = _Unpickler(io.BytesIO(data), self._table).load()
                if v.publisher_version_identifier in merged:
                    self._write(v, merged[v.publisher_version_identifier])
                else:
                    self._file.write(data)
                    self._offsets.append(self._offsets[-1] + len(data))
                del v, data
        finally:
            old.close()

    def close(self) -> None:
        """Close the file and drop the shared values (nothing can be read after this)."""
        self._current = None
        if isinstance(self._table, _DiskTable):
            self._table.close()
        self._table, self._shared, self._buffer, self._held, self._digests = [], {}, None, None, array("Q")
        self._file.close()

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def read(self, i: int) -> Spilled:
        """Version ``i`` and its manifestations (made again from the file)."""
        start, end = self._offsets[i], self._offsets[i + 1]
        data = os.pread(self._file.fileno(), end - start, start)
        spilled: Spilled = _Unpickler(io.BytesIO(data), self._table).load()
        return spilled

    def spilled(self) -> Iterator[Spilled]:
        """Every version with its manifestations, in order, one at a time."""
        for i in range(len(self)):
            yield self.read(i)

    @overload
    def __getitem__(self, i: int) -> VersionInput: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[VersionInput]: ...

    def __getitem__(self, i: int | slice) -> VersionInput | Sequence[VersionInput]:
        if isinstance(i, slice):
            return [self.read(j)[0] for j in range(len(self))[i]]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.read(i)[0]

    def __iter__(self) -> Iterator[VersionInput]:
        """The versions in order; the one last yielded is remembered with its manifestations."""
        try:
            for i in range(len(self)):
                v, manifestations = self.read(i)
                self._current = (i, v, manifestations)
                del manifestations
                yield v
                del v
        finally:
            self._current = None

    def manifestations_of(self, i: int, v: VersionInput) -> tuple[Manifestation, ...] | None:
        """The manifestations of ``v`` if it is the version ``i`` an iteration yielded last, else ``None``."""
        current = self._current
        if current is None or current[0] != i or current[1] is not v:
            return None
        return current[2]


def _digest(pvid: str) -> int:
    """A 64-bit digest of a publisher version identifier (BLAKE2b; two equal identifiers, equal digests)."""
    return int.from_bytes(hashlib.blake2b(pvid.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")
