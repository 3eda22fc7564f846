"""The route finder's combination of trains (autoroute._combine) against brute force on random candidate
lists: the best total of candidates with pairwise disjoint track, identical trains included."""

import itertools
import random

from engine.core.autoroute import _combine, _worth_running


def _brute(options) -> int:
    best = 0
    for picks in itertools.product(*[[None, *range(len(o[0]))] for o in options]):
        used = total = 0
        for o, j in zip(options, picks, strict=True):
            if j is None:
                continue
            if o[1][j] & used:
                break
            used |= o[1][j]
            total += o[0][j]
        else:
            best = max(best, total)
    return best


def test_combine_equals_brute_force():
    rnd = random.Random(1)
    for _ in range(1500):
        bits = rnd.randint(3, 12)
        kinds = sorted(rnd.randint(0, 2) for _ in range(rnd.randint(1, 4)))
        shared: dict = {}
        options = []
        for k in kinds:  # identical trains share their candidate list, as best_routes gives it
            if k not in shared:
                cands = sorted(((rnd.randint(1, 20), rnd.randint(1, (1 << bits) - 1))
                                for _ in range(rnd.randint(0, 7))), key=lambda c: -c[0])
                shared[k] = ([v for v, _ in cands], [m for _, m in cands], list(range(len(cands))))
            options.append(shared[k])
        total, pick = _combine(options, kinds)
        used = got = 0
        for o, j in zip(options, pick, strict=True):
            if j is not None:
                assert not o[1][j] & used
                used |= o[1][j]
                got += o[0][j]
        assert got == total == _brute(options)


def test_cut_to_the_candidates_worth_running_keeps_the_best_total():
    """Cutting each train's candidates below what a best run can use (autoroute._worth_running) never
    changes the best total, and cuts something in most draws."""
    rnd = random.Random(2)
    cut_any = 0
    for _ in range(1500):
        bits = rnd.randint(3, 12)
        kinds = sorted(rnd.randint(0, 2) for _ in range(rnd.randint(2, 4)))
        shared: dict = {}
        options = []
        for k in kinds:
            if k not in shared:
                cands = sorted(((rnd.randint(1, 20), rnd.randint(1, (1 << bits) - 1))
                                for _ in range(rnd.randint(0, 7))), key=lambda c: -c[0])
                shared[k] = ([v for v, _ in cands], [m for _, m in cands], list(range(len(cands))), {})
            options.append(shared[k])
        cut = _worth_running(options)
        cut_any += any(len(c[0]) < len(o[0]) for c, o in zip(cut, options, strict=True))
        assert all(c[0] == o[0][:len(c[0])] for c, o in zip(cut, options, strict=True))
        assert _combine(cut, kinds)[0] == _brute(options)
    assert cut_any > 300
