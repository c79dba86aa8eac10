"""Is one evaluator significantly better than another? Tests on paired data.

For two evaluators scored on the same items, at each level and statistic:

- Williams' test for dependent correlations (Graham and Baldwin 2014), Pearson at the
  segment and system level, one-sided in the direction of the observed difference, as
  WMT reports it (the group level averages correlations, which the test does not cover);
- a paired permutation test. The "both" permutation of Deutsch et al. (2021): each
  (system, group) cell's two scores, z-scored per evaluator, are swapped with
  probability 1/2 and the statistic recomputed on both hybrids. At the segment level
  Kendall's tau-b and tau-c and acc_eq swap the two evaluators' verdicts on each pair of items
  instead (mt-metrics-eval's ``PairwisePermutationSigDiff``): under that null the number
  of swapped pairs of each kind is binomial, so every permutation costs a few binomial
  draws. acc_eq keeps each evaluator's own threshold, as there, and tau-c (at the segment
  level) each evaluator's own m, the fewer distinct values of the two sides;
- soft pairwise accuracy swaps the two evaluators' verdicts on each pair of systems: the
  gaps between the people's and the evaluator's p-value that one system beats the other.

The p-value is the share of permutations whose difference (better minus worse) is at
least the observed one. Significance clusters follow WMT (mt-metrics-eval's
``AssignRanks``): evaluators sorted by value; a new cluster starts at the first
evaluator significantly worse than one of the current cluster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreement.metaeval import batched, stats
from agreement.metaeval.group_linear import (
    group_linear_differences,
    group_pearson_differences,
    no_ties,
)
from agreement.metaeval.group_perm import group_cell_statistics
from agreement.metaeval.levels import GROUP, SEGMENT, SYSTEM, Paired
from agreement.metaeval.segment_boot import MAX_PAIR_ITEMS, _near_codes, signs

WILLIAMS, PERMUTATION = "williams", "permutation"
ALPHA = 0.05


@dataclass(frozen=True)
class Comparison:
    """One test between evaluators ``a`` (the higher value) and ``b``."""

    a: str
    b: str
    level: str
    statistic: str
    test: str
    delta: float | None
    p: float | None
    n: int | None = None
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON row."""
        return {
            "a": self.a,
            "b": self.b,
            "level": self.level,
            "statistic": self.statistic,
            "test": self.test,
            "delta": self.delta,
            "p": self.p,
            "n": self.n,
            "reason": self.reason,
            **self.extra,
        }


def _z(v: np.ndarray) -> np.ndarray:
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else v - v.mean()


def williams(x: np.ndarray, ya: np.ndarray, yb: np.ndarray) -> tuple[float, float]:
    """(p, r_a - r_b): Williams' one-sided test on paired vectors."""
    ra, rb, rab = stats.pearson(x, ya), stats.pearson(x, yb), stats.pearson(ya, yb)
    return stats.williams_p(ra, rb, rab, len(x)), ra - rb


# ---- cell-swap permutations -------------------------------------------------------------


def _swaps(n_cells: int, k: int, seed: int) -> np.ndarray:
    """(k, n_cells) fair coins, one random bit each (eight to a drawn byte)."""
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, 256, (k, (n_cells + 7) // 8), dtype=np.uint8)
    return np.unpackbits(drawn, axis=1, count=n_cells).view(bool)


#: Bit t (most significant first) of every byte value: row v of the byte tables.
_BITS = ((np.arange(256)[:, None] >> np.arange(7, -1, -1)[None, :]) & 1).astype(float)


def _swapped_sums(moves: np.ndarray, k: int, seed: int) -> np.ndarray:
    """(k,) ``_swaps(len(moves), k, seed) @ moves`` without the (k, n) float mask: per
    drawn byte, a table of its 256 values' sums of the eight moves it covers, looked up.
    The sums are added in another order (p-values count nulls against delta - 1e-12)."""
    n = len(moves)
    n_bytes = (n + 7) // 8
    drawn = np.random.default_rng(seed).integers(0, 256, (k, n_bytes), dtype=np.uint8)
    padded = np.zeros(n_bytes * 8)
    padded[:n] = moves
    table = padded.reshape(n_bytes, 8) @ _BITS.T  # (bytes, 256)
    at = drawn + (np.arange(n_bytes) * 256)[None, :]
    return np.take(table.ravel(), at).sum(1)


def _swapped_block_sums(
    moves: np.ndarray, codes: np.ndarray, n_blocks: int, k: int, seed: int
) -> np.ndarray:
    """(k, n_blocks) per block (``codes``, non-decreasing) the sum of the swapped items'
    moves: ``_swaps(len(moves), k, seed) @ (moves x one-hot codes)`` by byte tables. A
    drawn byte covers eight items, of one block or (at a boundary) a few: each (byte,
    block) piece gets its table of 256 sums, and a block adds up its pieces' lookups."""
    n = len(moves)
    n_bytes = (n + 7) // 8
    drawn = np.random.default_rng(seed).integers(0, 256, (k, n_bytes), dtype=np.uint8)
    byte = np.arange(n) // 8
    piece_of = byte * n_blocks + codes  # increasing: bytes in order, blocks within one
    pieces, piece = np.unique(piece_of, return_inverse=True)
    bit_moves = np.zeros((len(pieces), 8))
    bit_moves[piece, np.arange(n) % 8] = moves
    table = bit_moves @ _BITS.T  # (pieces, 256)
    at = drawn[:, pieces // n_blocks] + (np.arange(len(pieces)) * 256)[None, :]
    looked = np.take(table.ravel(), at)  # (k, pieces)
    block = pieces % n_blocks
    starts = np.r_[0, np.flatnonzero(np.diff(block)) + 1]
    out = np.zeros((k, n_blocks))
    out[:, block[starts]] = np.add.reduceat(looked, starts, axis=1)
    return out


def system_permutation(
    pa: Paired, pb: Paired, names: tuple[str, ...], k: int, seed: int
) -> dict[str, np.ndarray]:
    """(k,) permuted differences (a minus b) of each system statistic."""
    s, g = np.nonzero(pa.valid)
    h = pa.people[s, g]
    za, zb = _z(pa.metric[s, g]), _z(pb.metric[s, g])
    keep = np.unique(s)
    codes = np.searchsorted(keep, s)
    onehot = np.zeros((len(s), len(keep)))
    onehot[np.arange(len(s)), codes] = 1.0
    count = onehot.sum(0)
    hs = (h @ onehot) / count
    # hybrid a's sums are a's plus the swapped cells' steps; a's and b's add up to both
    # (the cells come system by system: np.nonzero walks the matrix row by row)
    ha = (za @ onehot + _swapped_block_sums(zb - za, codes, len(keep), k, seed)) / count
    hb = ((za + zb) @ onehot) / count - ha
    hx = hs[None, :]  # the people's side: one row, the batched statistics broadcast it
    both = batched.several(hx, np.concatenate([ha, hb]), names)  # row by row: one call
    return {n: both[n][:k] - both[n][k:] for n in names}


def sorted_ranks(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks along the last axis (NaN for NaN values) and how many distinct values
    each row holds, by one sort (NaNs sort last)."""
    order = np.argsort(v, axis=-1)
    srt = np.take_along_axis(v, order, -1)
    k = v.shape[-1]
    same = srt[..., 1:] == srt[..., :-1]
    start = np.zeros(srt.shape, dtype=np.int64)
    end = np.zeros(srt.shape, dtype=np.int64)
    end[..., k - 1] = k - 1
    for i in range(1, k):
        start[..., i] = np.where(same[..., i - 1], start[..., i - 1], i)
    for i in range(k - 2, -1, -1):
        end[..., i] = np.where(same[..., i], end[..., i + 1], i)
    ranks = np.empty(v.shape)
    np.put_along_axis(ranks, order, (start + end) / 2.0 + 1.0, -1)
    ok = np.isfinite(v)
    distinct = (np.isfinite(srt[..., :1])).sum(-1) + (~same & np.isfinite(srt[..., 1:])).sum(-1)
    return np.where(ok, ranks, np.nan), distinct


def group_permutation(
    pa: Paired, pb: Paired, names: tuple[str, ...], k: int, seed: int
) -> dict[str, np.ndarray]:
    """(k,) permuted differences of each group statistic (cells swapped, per-group values
    recomputed, then averaged over the groups where they are defined)."""
    h, ma, mb = pa.people.T, pa.metric.T, pb.metric.T
    rows = np.isfinite(h).sum(1) >= 2
    h, ma, mb = h[rows], ma[rows], mb[rows]
    ok = np.isfinite(h)
    za, zb = np.full(h.shape, np.nan), np.full(h.shape, np.nan)
    za[ok], zb[ok] = _z(ma[ok]), _z(mb[ok])
    rh, distinct_h = sorted_ranks(h)
    u = _swaps(h.size, k, seed).reshape(k, *h.shape)
    out: dict[str, np.ndarray] = {}
    if no_ties(za, zb, ok):  # the rank statistics' differences are linear in the mask
        # once for every statistic's product (a complete grid needs no masking)
        uf = (u if ok.all() else u & ok[None]).astype(float)
        out = group_linear_differences(h, za, zb, u, rh, distinct_h, names, uf)
        if "pearson" in names:
            out["pearson"] = group_pearson_differences(h, za, zb, u, uf)
    rest = tuple(n for n in names if n not in out)
    if rest:
        sa, sb = group_cell_statistics(h, za, zb, u, rh, distinct_h, rest)
        with np.errstate(invalid="ignore"):
            out.update({n: _nanmean(sa[n]) - _nanmean(sb[n]) for n in rest})
    return out


def _nanmean(v: np.ndarray) -> np.ndarray:
    ok = np.isfinite(v)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, v, 0.0).sum(-1) / ok.sum(-1)


def segment_pearson_spearman(
    pa: Paired, pb: Paired, names: tuple[str, ...], k: int, seed: int
) -> dict[str, np.ndarray]:
    """(k,) permuted differences of segment Pearson and Spearman, cells swapped."""
    x, ya, _ = pa.flat()
    _, yb, _ = pb.flat()
    za, zb = _z(ya), _z(yb)
    u = _swaps(len(x), k, seed)
    uf = u.astype(float)  # once for both statistics' products
    out = {}
    if "pearson" in names:
        out["pearson"] = _swapped_pearson(x - x.mean(), za, zb, uf)
    if "spearman" in names:
        from agreement.correlation_tests import average_ranks

        rx = average_ranks(x)
        out["spearman"] = _rank_pearson(rx, za, zb, u, uf)
    return out


def _swapped_pearson(xc: np.ndarray, za: np.ndarray, zb: np.ndarray, uf: np.ndarray) -> np.ndarray:
    """Pearson of hybrid a (``where(u, zb, za)``) minus hybrid b from sums linear in the
    mask (``uf``, as floats): the two hybrids add up to ``za + zb`` item by item."""
    step = zb - za
    lin = uf @ np.stack([xc * step, step, zb * zb - za * za], 1)
    n = len(xc)
    sxy_a = float(xc @ za) + lin[:, 0]
    sy_a = float(za.sum()) + lin[:, 1]
    syy_a = float(za @ za) + lin[:, 2]
    sxy_b = float(xc @ (za + zb)) - sxy_a
    sy_b = float((za + zb).sum()) - sy_a
    syy_b = float(za @ za + zb @ zb) - syy_a
    sxx = float(xc @ xc)
    with np.errstate(invalid="ignore", divide="ignore"):
        ra = sxy_a / np.sqrt(sxx * (syy_a - sy_a * sy_a / n))
        rb = sxy_b / np.sqrt(sxx * (syy_b - sy_b * sy_b / n))
    return ra - rb


def _rank_pearson(
    rx: np.ndarray, za: np.ndarray, zb: np.ndarray, u: np.ndarray, uf: np.ndarray | None = None
) -> np.ndarray:
    """Spearman of hybrid a minus hybrid b (``rx`` the people's ranks; ``uf`` the mask
    ``u`` as floats)."""
    both = np.r_[za, zb]
    order = np.argsort(both, kind="stable")
    srt = both[order]
    if np.all(srt[1:] > srt[:-1]):
        return _rank_pearson_distinct(rx, order, u.astype(float) if uf is None else uf)
    return _rank_pearson_ties(rx, za, zb, u)


def _rank_pearson_distinct(rx: np.ndarray, order: np.ndarray, uf: np.ndarray) -> np.ndarray:
    """Without ties among the 2n scores the difference is linear in the swap mask.

    Sort both evaluators' scores together; position p holds weight w_p (the people's
    centred rank of its item); hybrid a picks n positions (``pick``), b the others. With
    r_p the picked positions up to p, sum(a's rank x w) - sum(b's rank x w) =
    sum_p w_p (r_p - (1 - pick_p) p); and sum_p w_p r_p = sum_q pick_q (w_q + ... + w_2n).
    Both ranks' spreads are n (n^2 - 1) / 12 (no ties), so rho_a - rho_b is one matrix-
    vector product of the mask.
    """
    n = uf.shape[1]
    rxc = rx - rx.mean()
    w = np.r_[rxc, rxc][order]
    pos = np.arange(1, 2 * n + 1, dtype=float)
    per_position = np.cumsum(w[::-1])[::-1] + w * pos
    v = np.empty(2 * n)
    v[order] = per_position  # back to [a's items, b's items]
    va, vb = v[:n], v[n:]
    base = float(va.sum() - w @ pos)
    den = math.sqrt(float(rxc @ rxc) * n * (n * n - 1) / 12.0)
    if den == 0:
        return np.full(uf.shape[0], np.nan)
    return (base + uf @ (vb - va)) / den


def _rank_pearson_ties(rx: np.ndarray, za: np.ndarray, zb: np.ndarray, u: np.ndarray) -> np.ndarray:
    """With ties, per distinct value: how many items of the hybrid hold it and the sum of
    their people's centred ranks (no sorting per permutation)."""
    values, codes = np.unique(np.r_[za, zb], return_inverse=True)
    n, kv = len(za), len(values)
    ca, cb = codes[:n], codes[n:]
    k = u.shape[0]
    rxc = rx - rx.mean()
    flat = (np.where(u, cb, ca) + (np.arange(k) * kv)[:, None]).ravel()
    count_a = np.bincount(flat, minlength=k * kv).reshape(k, kv)
    weight_a = np.bincount(flat, np.broadcast_to(rxc, u.shape).ravel(), k * kv).reshape(k, kv)
    count_b = np.bincount(codes, minlength=kv)[None, :] - count_a
    weight_b = (np.bincount(ca, rxc, kv) + np.bincount(cb, rxc, kv))[None, :] - weight_a
    mean = (n + 1) / 2.0
    sxx = float(rxc @ rxc)

    def rho(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
        rank = np.cumsum(counts, 1, dtype=np.int32) - counts * 0.5 + 0.5
        syy = np.einsum("ij,ij,ij->i", counts, rank, rank) - n * mean * mean
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.einsum("ij,ij->i", weights, rank) / np.sqrt(sxx * syy)

    return rho(count_a, weight_a) - rho(count_b, weight_b)


# ---- pair-swap permutations (segment level, Kendall and acc_eq) ------------------------


#: A pair's state code: sign agreement with people (0, 1, 2 for -1, 0, +1), + 3 for a
#: tie in the evaluator's scores, + 6 for agreement at its acc_eq threshold.
N_STATES = 12
#: An item paired with itself: tied on both sides, agreeing.
_SELF = 1 + 3 + 6


@dataclass(frozen=True)
class PairStates:
    """An evaluator's verdicts on every ordered pair of items (i, j), itself included, as
    bit planes: per state code, the packed mask of the pairs in it (row-major over the
    items x items matrix, the same layout for every evaluator of the same items)."""

    n: int
    planes: dict[int, np.ndarray]  # state code -> packed bits as uint64


#: The codes a pair can have: a tie in the evaluator's scores has sign product 0.
_CODES = (0, 1, 2, 6, 7, 8, 1 + 3, 1 + 3 + 6)


def pair_states(x: np.ndarray, y: np.ndarray, epsilon: float) -> PairStates:
    """Each pair of items coded by the evaluator's verdict (``N_STATES`` codes), from the
    distinct values' integer codes: the signs, ties and thresholds the float differences
    give, without a float items x items matrix."""
    kx = np.unique(x, return_inverse=True)[1].astype(np.int16)
    uy, ky = np.unique(y, return_inverse=True)
    ky = ky.astype(np.int16)
    sx, sy = signs(kx), signs(ky)
    state = sx * sy
    state += 1
    tie_y = sy == 0
    if epsilon > 0:  # |y_i - y_j| <= epsilon, decided as the float test does
        lo, hi = _near_codes(uy, epsilon)
        width = (hi - lo)[ky].astype(np.uint16)
        near = (ky[None, :] - lo[ky].astype(np.int16)[:, None]).view(np.uint16) <= width[:, None]
    else:
        near = tie_y
    agree = ((sx == 0) & near) | ((state == 2) & ~near)  # boolean masks: no np.where
    state += 3 * tie_y.view(np.int8)
    state += 6 * agree.view(np.int8)
    flat = state.ravel()
    planes = {}
    for code in _CODES:
        hit = flat == code
        if not hit.any():
            continue
        bits = np.packbits(hit)
        planes[code] = np.pad(bits, (0, -len(bits) % 8)).view(np.uint64)
    return PairStates(len(x), planes)


def pair_histogram(sa: PairStates, sb: PairStates) -> np.ndarray:
    """(N_STATES * N_STATES,) unordered pairs of items (i < j) by (a's state, b's state):
    popcounts of the planes' intersections; every matrix holds each pair twice and each
    item once with itself."""
    hist = np.zeros(N_STATES * N_STATES, dtype=np.int64)
    for va, pa in sa.planes.items():
        for vb, pb in sb.planes.items():
            hist[va * N_STATES + vb] = int(np.bitwise_count(pa & pb).sum(dtype=np.int64))
    hist[_SELF * N_STATES + _SELF] -= sa.n
    return hist // 2


def segment_pair_permutation(
    x: np.ndarray,
    sa: PairStates,
    sb: PairStates,
    k: int,
    seed: int,
    distinct: tuple[int, int] | None = None,
) -> dict[str, np.ndarray]:
    """(k,) permuted differences of segment tau-b, tau-c and acc_eq, verdicts swapped
    pair by pair (drawn as binomial counts per kind of pair).

    ``distinct``: tau-c's m of each evaluator (the fewer distinct values of people and
    its scores); each side keeps its own, as each keeps its own acc_eq threshold. Without
    it there is no tau-c."""
    n_states = N_STATES
    hist = pair_histogram(sa, sb)
    kinds = np.flatnonzero(hist)
    st_a, st_b = kinds // n_states, kinds % n_states

    def parts(s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (s % 3) - 1, (s // 3) % 2, s // 6

    ka, ta, aa = parts(st_a)
    kb, tb, ab = parts(st_b)
    cnt = hist[kinds]
    rng = np.random.default_rng(seed)
    swapped = rng.binomial(cnt[None, :], 0.5, size=(k, len(kinds)))
    tot = cnt.sum()
    _, copies = np.unique(x, return_counts=True)
    x_ties = int((copies * (copies - 1) // 2).sum())

    n = len(x)

    def side(k_own, t_own, a_own, k_other, t_other, a_other, m):
        kk = (cnt * k_own).sum() + swapped @ (k_other - k_own)
        tt = (cnt * t_own).sum() + swapped @ (t_other - t_own)
        aa_ = (cnt * a_own).sum() + swapped @ (a_other - a_own)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = kk / np.sqrt((tot - x_ties) * (tot - tt))
            tau_c = 2 * kk / (n * n * (m - 1) / m) if m else None
        return tau, tau_c, aa_ / tot

    m_a, m_b = distinct or (0, 0)
    tau_a, c_a, acc_a = side(ka, ta, aa, kb, tb, ab, m_a)
    tau_b, c_b, acc_b = side(kb, tb, ab, ka, ta, aa, m_b)
    out = {"kendall_b": tau_a - tau_b, "acc_eq": acc_a - acc_b}
    if c_a is not None and c_b is not None:
        out["kendall_c"] = c_a - c_b
    return out


def soft_pairwise_permutation(
    gap_a: np.ndarray, gap_b: np.ndarray, k: int, seed: int
) -> np.ndarray:
    """(k,) permuted differences of soft pairwise accuracy: each system pair's two gaps
    (|people's p-value - the evaluator's|) swapped with probability 1/2, the pair-level
    permutation Kendall's tau and acc_eq get at the segment level. Recomputing every
    p-value per permutation would take a thousand inner permutations each."""
    d = gap_b - gap_a  # what a gains over b on each system pair
    flip = np.random.default_rng(seed).random((k, len(d))) < 0.5
    return np.where(flip, -d, d).mean(1)


def group_acc_eq_permutation(
    pa: Paired, pb: Paired, eps_a: float, eps_b: float, k: int, seed: int
) -> np.ndarray:
    """(k,) permuted differences of group-level acc_eq, verdicts swapped pair by pair
    (every group at once: per group, binomial counts of the pairs only one gets right)."""
    h, ma, mb = pa.people.T, pa.metric.T, pb.metric.T
    rows = np.isfinite(h).sum(1) >= 2
    h, ma, mb = h[rows], ma[rows], mb[rows]
    ok = np.isfinite(h)
    s = h.shape[1]
    pair = ok[:, :, None] & ok[:, None, :] & np.triu(np.ones((s, s), dtype=bool), 1)
    with np.errstate(invalid="ignore"):
        dx = h[:, :, None] - h[:, None, :]

        def agree(m: np.ndarray, eps: float) -> np.ndarray:
            dy = m[:, :, None] - m[:, None, :]
            same = np.sign(dx) * np.sign(dy) > 0
            return np.where(np.abs(dy) <= eps, dx == 0, same) & pair

        agree_a, agree_b = agree(ma, eps_a), agree(mb, eps_b)
    n_pairs = pair.sum((1, 2))
    only_a, only_b = agree_a & ~agree_b, agree_b & ~agree_a  # pairs one gets right
    # a swapped pair a alone gets right costs a 1/pairs of its group, one b alone gets
    # right gains it as much; a pair both (or neither) get right never moves
    weight = 1.0 / n_pairs[:, None, None]
    moves = np.r_[
        -2 * np.broadcast_to(weight, only_a.shape)[only_a],
        2 * np.broadcast_to(weight, only_b.shape)[only_b],
    ]
    observed = ((only_a.sum((1, 2)) - only_b.sum((1, 2))) / n_pairs).sum()
    return (observed + _swapped_sums(moves, k, seed)) / max(len(n_pairs), 1)


# ---- clusters ----------------------------------------------------------------------------


def clusters(order: list[str], p_of: dict[tuple[str, str], float | None]) -> list[int]:
    """WMT's significance ranks: ``order`` sorted best first, ``p_of[(better, worse)]``
    the p-value that the worse one is not worse. A cluster ends at the first evaluator
    significantly worse than one since the cluster's start."""
    ranks, current, start = [], 1, 0
    for i, name in enumerate(order):
        if any(
            (p := p_of.get((order[j], name))) is not None and p <= ALPHA for j in range(start, i)
        ):
            current += 1
            start = i
        ranks.append(current)
    return ranks


def p_value(null: np.ndarray, delta: float) -> float | None:
    """Share of permutations at least as far as the observed difference (NaNs dropped)."""
    null = null[np.isfinite(null)]
    if not len(null) or not math.isfinite(delta):
        return None
    return float(np.mean(null >= delta - 1e-12))


__all__ = [
    "GROUP",
    "MAX_PAIR_ITEMS",
    "PERMUTATION",
    "SEGMENT",
    "SYSTEM",
    "WILLIAMS",
    "Comparison",
    "clusters",
    "group_acc_eq_permutation",
    "group_permutation",
    "p_value",
    "N_STATES",
    "PairStates",
    "pair_histogram",
    "pair_states",
    "segment_pair_permutation",
    "segment_pearson_spearman",
    "soft_pairwise_permutation",
    "system_permutation",
    "williams",
]
