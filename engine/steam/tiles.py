"""Steam track tiles: the faces of the tile manifest, their geometry, and the double-sided stock.

A plain face is a tuple of paths, each path a pair of edges (no plain tile branches).
A town face is a tuple of single edges ("spurs"), each joining the town in the centre to an edge.
Geometry is given for rotation 0; rotation r turns every edge by r steps clockwise.

Tile ids follow the Russian manifest; "П"/"Т" (town) is written "T": П11 -> "T11", П21/Т21 -> "T21",
П25/Т23 -> "T23" (the sharp-curve town tile; the manifest misprints it П25).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Face:
    id: str
    town: bool
    paths: tuple[tuple[int, ...], ...]  # plain: ((a, b), ...); town: ((e,), ...)
    description: str

    @property
    def edges(self) -> tuple[int, ...]:
        return tuple(sorted(e for p in self.paths for e in p))

    @property
    def base_price(self) -> int:
        """$1 per edge with track, +$1 town surcharge (the number printed in the manifest)."""
        return len(self.edges) + (1 if self.town else 0)

    def rotated(self, rotation: int) -> tuple[tuple[int, ...], ...]:
        return _ROTATED[(self.id, rotation % 6)]

    def _compute_rotated(self, rotation: int) -> tuple[tuple[int, ...], ...]:
        return tuple(sorted(tuple(sorted((e + rotation) % 6 for e in p)) for p in self.paths))


FACES: dict[str, Face] = {}


def _face(fid: str, town: bool, paths, description: str) -> None:
    FACES[fid] = Face(fid, town, tuple(tuple(p) for p in paths), description)


_face("21", False, [(0, 3)], "2 edges, straight")
_face("22", False, [(0, 2)], "2 edges, gentle curve")
_face("23", False, [(0, 1)], "2 edges, sharp curve")
_face("41", False, [(0, 3), (1, 4)], "crossing of 2 straights")
_face("42", False, [(0, 3), (2, 4)], "crossing of a straight and a gentle curve")
_face("43", False, [(0, 2), (1, 3)], "crossing of 2 gentle curves")
_face("44", False, [(0, 3), (1, 2)], "straight and sharp curve")
_face("45", False, [(0, 2), (3, 5)], "2 gentle curves")
_face("46", False, [(0, 2), (3, 4)], "gentle curve and sharp curve")
_face("47", False, [(0, 2), (4, 5)], "sharp curve and gentle curve (mirror of 46)")
_face("T11", True, [(0,)], "town, 1 edge")
_face("T21", True, [(0,), (3,)], "town, 2 edges, straight")
_face("T22", True, [(0,), (2,)], "town, 2 edges, gentle curve")
_face("T23", True, [(0,), (1,)], "town, 2 edges, sharp curve")
_face("T31", True, [(0,), (2,), (4,)], "town, 3 edges, triple junction")
_face("T32", True, [(0,), (1,), (3,)], "town, 3 edges, Y junction, left")
_face("T33", True, [(0,), (2,), (3,)], "town, 3 edges, Y junction, right")
_face("T34", True, [(0,), (1,), (2,)], "town, 3 edges, knot")
_face("T41", True, [(0,), (2,), (3,), (4,)], "town, 4 edges, 'peace sign'")
_face("T42", True, [(0,), (1,), (3,), (4,)], "town, 4 edges, cross")
_face("T43", True, [(0,), (1,), (2,), (3,)], "town, 4 edges, crossing")

_ROTATED = {(f, r): face._compute_rotated(r) for f, face in FACES.items() for r in range(6)}
PLAIN_FACES = tuple(f for f in FACES if not FACES[f].town)
TOWN_FACES = tuple(f for f in FACES if FACES[f].town)
SIMPLE_FACE_BY_SPAN = {1: "23", 2: "22", 3: "21"}

# Physical double-sided tiles (face/back list of the rulebook); 136 in all.  The back of П11 ("1-")
# is not a usable face.  Tiles 48-50 of the manifest appear on no physical tile and are not used.
PHYSICAL: tuple[tuple[tuple[str, ...], int], ...] = (
    (("21", "22"), 86),
    (("44", "47"), 2),
    (("43", "T43"), 4),
    (("42", "T41"), 4),
    (("23", "T23"), 8),
    (("45", "46"), 2),
    (("44", "45"), 2),
    (("T42", "41"), 4),
    (("T32", "T33"), 4),
    (("T21", "T22"), 10),
    (("47", "46"), 2),
    (("T31", "T34"), 4),
    (("T11",), 4),
)
assert sum(n for _, n in PHYSICAL) == 136


def _components() -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
    """Connected components of the face/physical-tile graph: (faces, physical indices)."""
    parent = {f: f for f in FACES}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for faces, _ in PHYSICAL:
        for f in faces[1:]:
            parent[find(f)] = find(faces[0])
    groups: dict[str, list[str]] = {}
    for f in FACES:
        groups.setdefault(find(f), []).append(f)
    out = []
    for faces in groups.values():
        kinds = tuple(i for i, (fs, _) in enumerate(PHYSICAL) if set(fs) & set(faces))
        out.append((tuple(sorted(faces)), kinds))
    return out


_COMPONENTS = _components()
_FACE_COMPONENT = {f: i for i, (faces, _) in enumerate(_COMPONENTS) for f in faces}


def _component_feasible(faces: tuple[str, ...], kinds: tuple[int, ...], used: dict[str, int]) -> bool:
    # Hall's condition for the transportation problem: every set of faces fits the tiles that carry them.
    for k in range(1, len(faces) + 1):
        for subset in combinations(faces, k):
            demand = sum(used.get(f, 0) for f in subset)
            if not demand:
                continue
            supply = sum(PHYSICAL[i][1] for i in kinds if set(PHYSICAL[i][0]) & set(subset))
            if demand > supply:
                return False
    return True


def feasible(used: dict[str, int]) -> bool:
    """Can the faces on the board (face -> count) be cut from the physical double-sided tiles?"""
    for faces, kinds in _COMPONENTS:
        if any(used.get(f, 0) for f in faces) and not _component_feasible(faces, kinds, used):
            return False
    return True


def can_add(used: dict[str, int], face: str, remove: str | None = None) -> bool:
    """Is a tile with `face` still in the supply (after `remove` goes back to it)?"""
    if face not in FACES:
        return False
    trial = dict(used)
    if remove is not None:
        trial[remove] = trial.get(remove, 0) - 1
    trial[face] = trial.get(face, 0) + 1
    faces, kinds = _COMPONENTS[_FACE_COMPONENT[face]]
    return _component_feasible(faces, kinds, trial)


def supply_left(used: dict[str, int]) -> dict[str, int]:
    """How many more of each face could be laid (each face considered on its own)."""
    out = {}
    for f in FACES:
        n = 0
        trial = dict(used)
        faces, kinds = _COMPONENTS[_FACE_COMPONENT[f]]
        while n < 200:
            trial[f] = trial.get(f, 0) + 1
            if not _component_feasible(faces, kinds, trial):
                break
            n += 1
        out[f] = n
    return out
