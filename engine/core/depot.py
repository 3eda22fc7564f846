"""The bank's trains: those not yet sold (in order), the discard pile, and what a first sale does to the
trains already out (rusting, obsolescence).

Trains are built as the title data describes them: a distance that is a number of stops or N+M rules
per kind of stop (1860 "2+1", 18MEX towns free), revenue multipliers (18MEX 4D), when a kind rusts or
becomes obsolete, when it becomes available, trade-in discounts, and counts ("unlimited": one more
appears whenever the last is sold).
"""

from __future__ import annotations

from engine.core.entities import Train


class Depot:
    def __init__(self, trains_data: list[dict]) -> None:
        self.trains: list[Train] = []
        self.upcoming: list[Train] = []
        self.discarded: list[Train] = []
        self.sold_names: set[str] = set()  # kinds of train the bank has started selling
        self.unlimited: set[str] = set()
        self._next_index: dict[str, int] = {}
        for t in trains_data:
            count = t.get("count_in_game", t.get("num", 1))
            if t.get("num") == "unlimited":
                self.unlimited.add(t["name"])
                count = 1
            for _ in range(count):
                self._add(t)
        self.data_by_name = {t["name"]: t for t in trains_data}

    def _add(self, t: dict) -> Train:
        index = self._next_index.get(t["name"], 0)
        self._next_index[t["name"]] = index + 1
        train = Train(f"{t['name']}-{index}", t["name"], t["distance"], t["price"], t.get("rusts_on"),
                      t.get("available_on"), t.get("discount"), obsolete_on=t.get("obsolete_on"),
                      multiplier=t.get("multiplier"))
        self.trains.append(train)
        self.upcoming.append(train)
        return train

    def remove(self, train: Train) -> None:
        """A train leaves the bank (sold, or given away at setup)."""
        if train in self.upcoming:
            self.upcoming.remove(train)
            if train.name in self.unlimited and not any(t.name == train.name for t in self.upcoming):
                self._add(self.data_by_name[train.name])
        elif train in self.discarded:
            self.discarded.remove(train)

    def depot_trains(self, phase_names: set[str]) -> list[Train]:
        """Trains the bank sells now: the next one in line, later types already released, discards."""
        out: list[Train] = []
        names: set[str] = set()
        for i, train in enumerate(self.upcoming):
            if train.name in names:
                continue
            if i == 0 or (train.available_on and train.available_on in phase_names):
                out.append(train)
                names.add(train.name)
        pile: list[Train] = []
        for train in self.discarded:  # the first of each kind in the pile
            if not train.obsolete and all(t.name != train.name for t in pile):
                pile.append(train)
        return out + pile

    def events_of(self, name: str) -> list[dict]:
        return list(self.data_by_name[name].get("events", ()))

    def discard(self, train: Train) -> None:
        """A train given back to the bank: into the pile, or gone if it is obsolete."""
        train.owner = None
        if train.obsolete:
            train.rusted = True
        else:
            self.discarded.append(train)

    def rust_and_obsolete(self, name: str, keep=None) -> list[Train]:
        """The first train of a kind was sold: trains that become obsolete on it are marked (they run once
        more; those in the bank go at once), trains that rust on it leave the game. The trains removed
        from their owners (who are told by the owner's `trains` list) are returned. `keep(train)`: a title's
        exception (18MEX: the minors' 2-trains when their closing is delayed)."""
        for train in self.trains:
            if train.obsolete_on == name and not train.obsolete:
                train.obsolete = True
        removed = []
        for train in self.trains:
            if train.rusted:
                continue
            in_pile = train in self.discarded
            if not (train.rusts_on_name(name) or (train.obsolete_on == name and in_pile)):
                continue
            if keep is not None and keep(train):
                continue
            if train.owner is not None:
                train.owner.trains.remove(train)
                removed.append(train)
            elif in_pile:
                self.discarded.remove(train)
            else:
                continue  # still in the bank's stock, not yet sold
            train.rusted = True
            train.owner = None
        return removed
