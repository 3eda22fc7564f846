"""The route finder's run search (engine.core.autoroute._combine) with a run rule (`accept`) and limited passes,
against every combination of random candidates."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.core.autoroute import _combine


def _random_options(rng: random.Random, trains: int):
    options, limited, keys = [], [], []
    for _ in range(trains):
        count = rng.randint(0, 7)
        vals = sorted((rng.randint(1, 60) for _ in range(count)), reverse=True)
        masks = [rng.randint(1, 255) & rng.randint(1, 255) or 1 for _ in range(count)]
        options.append((vals, masks, list(range(count))))
        limited.append([rng.random() < 0.4 for _ in range(count)])
        keys.append(rng.randint(0, 1))
    # trains with equal keys are alike: the same candidates, next to each other
    order = sorted(range(trains), key=keys.__getitem__)
    keys = [keys[i] for i in order]
    options = [options[i] for i in order]
    limited = [limited[i] for i in order]
    for i in range(1, trains):
        if keys[i] == keys[i - 1]:
            options[i], limited[i] = options[i - 1], limited[i - 1]
    return options, limited, keys


def _exhaustive(options, limited, passes, accept):
    best = 0
    for run in itertools.product(*[[None, *range(len(o[0]))] for o in options]):
        used = 0
        ok = True
        for o, j in zip(options, run, strict=True):
            if j is None:
                continue
            if o[1][j] & used:
                ok = False
                break
            used |= o[1][j]
        if not ok or sum(1 for lim, j in zip(limited, run, strict=True) if j is not None and lim[j]) > passes:
            continue
        if accept is not None and not accept(list(run)):
            continue
        best = max(best, sum(o[0][j] for o, j in zip(options, run, strict=True) if j is not None))
    return best


@pytest.mark.parametrize("seed", range(60))
def test_combine_equals_exhaustive_with_run_rule_and_passes(seed):
    rng = random.Random(seed)
    options, limited, keys = _random_options(rng, rng.randint(1, 4))
    passes = rng.randint(0, 2)
    # a run rule of the kind 1860 has: the first train's first candidate (say, the one through the home
    # station) or nothing at all
    rule = rng.choice([None, "home", "even"])

    def accept(run):
        if rule == "home":
            return run[0] == 0 if options[0][0] else True
        return sum(o[0][j] for o, j in zip(options, run, strict=True) if j is not None) % 2 == 0

    check = None if rule is None else accept
    total, pick = _combine(options, keys, check, limited, passes)
    assert total == _exhaustive(options, limited, passes, check)
    # the pick is a legal run worth the total
    picked = [(o, lim, j) for o, lim, j in zip(options, limited, pick, strict=True) if j is not None]
    assert sum(o[0][j] for o, _lim, j in picked) == total
    used = 0
    for o, _lim, j in picked:
        assert not o[1][j] & used
        used |= o[1][j]
    assert sum(1 for _o, lim, j in picked if lim[j]) <= passes
    if check is not None and picked:
        assert check(pick)
