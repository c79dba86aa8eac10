"""Write mt-metrics-eval's own values for the meta-evaluation tests.

    python scripts/metaeval_mtme_reference.py [--mirror DIR] [--venv DIR]

Google's mt-metrics-eval (github.com/google-research/mt-metrics-eval) is the WMT metrics
task's reference implementation. This script copies three of its modules (``stats``,
``pce``, ``tau_optimization``) out of a git mirror of that repository into a temporary
folder, builds a side environment (a venv under /tmp with numpy and scipy from PyPI; the
workbench never imports it), and runs ``mt_metrics_eval.stats`` there on seeded synthetic
data: 3 to 20 systems, ties, missing human scores and groups where every system got the
same human score. The data and mt-metrics-eval's answers go to
``tests/data/metaeval_mtme_reference.json``, which ``tests/test_metaeval_reference.py``
reads, so the tests need neither the mirror nor the side environment. Nothing of
mt-metrics-eval's code is committed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "metaeval_mtme_reference.json"
MIRROR = Path("/work/.mirror/google-research+mt-metrics-eval/repo")
MODULES = ("stats.py", "pce.py", "tau_optimization.py", "data.py")
SEED = 20261128

CHILD = r"""
import ast, json, sys, warnings
import numpy as np
import scipy.stats
from mt_metrics_eval import stats

warnings.simplefilter("ignore")
SEED, OUT, DATA_PY = int(sys.argv[1]), sys.argv[2], sys.argv[3]

# AssignRanks lives in data.py, which imports apache_beam: take the one function's source
tree = ast.parse(open(DATA_PY).read())
fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "AssignRanks")
scope = {}
exec(compile(ast.Module([fn], []), "data.py", "exec"), scope)
AssignRanks = scope["AssignRanks"]

rng = np.random.default_rng(SEED)
cases = []
for case, (S, G, missing) in enumerate(
    [(3, 12, 0.0), (4, 9, 0.1), (5, 20, 0.15), (8, 15, 0.0), (14, 30, 0.1), (20, 25, 0.05)]
):
    quality = rng.normal(0, 1, S)
    difficulty = rng.normal(0, 1, G)
    truth = quality[:, None] + difficulty[None, :] + rng.normal(0, 0.8, (S, G))
    gold = np.round(truth * 2) / 2  # ties
    gold[:, 0] = 1.0  # a constant group: every system got the same human score
    m1 = np.round(truth + rng.normal(0, 0.7, (S, G)), 1)  # ties in the metric too
    m2 = truth + rng.normal(0, 1.2, (S, G)) + 0.5 * quality[:, None]
    hole = rng.random((S, G)) < missing
    gold_list = [None if hole[s, g] else float(gold[s, g]) for s in range(S) for g in range(G)]
    out = {"systems": S, "groups": G, "gold": gold_list,
           "m1": m1.ravel().tolist(), "m2": m2.ravel().tolist()}
    for name in ("m1", "m2"):
        c = stats.Correlation(S, gold_list, out[name])
        ref = {}
        for avg in ("none", "item"):
            ref[f"pearson_{avg}"] = c.Pearson(avg)[:2]
            ref[f"pearson_{avg}_n"] = c.Pearson(avg)[2]
            ref[f"spearman_{avg}"] = c.Spearman(avg)[0]
            ref[f"kendall_b_{avg}"] = c.Kendall(avg, "b")[0]
            ref[f"kendall_c_{avg}"] = c.Kendall(avg, "c")[0]
            acc, eps, _ = stats.KendallWithTiesOpt(gold_list, out[name], "acc23", S, avg, 1.0)
            ref[f"acc_eq_{avg}"] = [acc, eps]
        g_f, m_f = stats.filter_gold_nones(gold_list, out[name])
        g_f, m_f = list(g_f), list(m_f)
        ref["kendall_variants"] = {
            str(e): [stats.KendallVariants(g_f, m_f, v, epsilon=e)[0] for v in ("b", "acc23")]
            for e in (0.0, 0.1, 0.35)
        }
        # system level: per-system means over the cells with a human score
        ok = ~hole
        hs = [float(gold[s][ok[s]].mean()) for s in range(S)]
        ms = [float(np.asarray(out[name]).reshape(S, G)[s][ok[s]].mean()) for s in range(S)]
        cs = stats.Correlation(S, hs, ms)
        ref["system"] = {"gold": hs, "metric": ms,
                         "pearson": cs.Pearson()[0], "spearman": cs.Spearman()[0],
                         "kendall_b": cs.Kendall(variant="b")[0],
                         "kendall_c": cs.Kendall(variant="c")[0],
                         "agreement": [int(v) for v in stats.Agreement(hs, ms)]}
        if missing == 0.0:
            spa = stats.Correlation(S, gold_list, out[name]).PairwiseConfidenceError()[0]
            ref["soft_pairwise_accuracy"] = float(spa)
        out[name + "_ref"] = ref
    # Williams between the two metrics, system level and segment level (no None there)
    sys1 = stats.Correlation(S, out["m1_ref"]["system"]["gold"], out["m1_ref"]["system"]["metric"])
    sys2 = stats.Correlation(S, out["m2_ref"]["system"]["gold"], out["m2_ref"]["system"]["metric"])
    if S > 3:  # the test divides by n - 3
        out["williams_system"] = [
            stats.WilliamsSigDiff(sys1, sys2, scipy.stats.pearsonr)[0],
            stats.WilliamsSigDiff(sys1, sys2, scipy.stats.pearsonr, False)[0]]
    g_f, a_f = stats.filter_gold_nones(gold_list, out["m1"])
    _, b_f = stats.filter_gold_nones(gold_list, out["m2"])
    seg1 = stats.Correlation(1, list(g_f), list(a_f))
    seg2 = stats.Correlation(1, list(g_f), list(b_f))
    out["williams_segment"] = stats.WilliamsSigDiff(seg1, seg2, scipy.stats.pearsonr)[0]
    cases.append(out)
    if S * G > 100:  # mt-metrics-eval's permutation loops are slow: the small cases only
        continue
    # permutation tests: the null distributions, for comparison by distribution
    np.random.seed(SEED + case)
    params = stats.PermutationSigDiffParams(block_size=2000)
    full1 = stats.Correlation(S, gold_list, out["m1"])
    full2 = stats.Correlation(S, gold_list, out["m2"])
    perm = {}
    for label, fcn, avg, kw in (
        ("pearson_none", scipy.stats.pearsonr, "none", {}),
        ("spearman_none", scipy.stats.spearmanr, "none", {}),
        ("pearson_item", scipy.stats.pearsonr, "item", {}),
        ("kendall_b_item", stats.KendallVariants, "item", {"variant": "b"}),
    ):
        p, delta, k, draws = stats.PermutationSigDiff(full2, full1, fcn, avg, 1000, params, **kw)
        d = np.asarray(draws)
        perm[label] = {"p": p, "delta": delta, "null": (d[:, 0] - d[:, 1]).tolist()}
    p, delta, k, draws = stats.PairwisePermutationSigDiff(
        full2, full1, "acc23", "none", 1000, params, sample_rate=1.0)
    d = np.asarray(draws)
    perm["acc_eq_none"] = {"p": p, "delta": delta, "null": (d[:, 0] - d[:, 1]).tolist()}
    out["permutation"] = perm

sig = np.array([[np.nan, 0.2, 0.01, 0.001, 0.0],
                [np.nan, np.nan, 0.3, 0.04, 0.01],
                [np.nan, np.nan, np.nan, 0.5, 0.02],
                [np.nan, np.nan, np.nan, np.nan, 0.3],
                [np.nan] * 5])
ranks = {"sig": [[None if np.isnan(v) else v for v in row] for row in sig.tolist()],
         "ranks": AssignRanks(sig, 0.05)}
json.dump({"seed": SEED, "cases": cases, "assign_ranks": ranks}, open(OUT, "w"), indent=1)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=MIRROR, help="git dir of mt-metrics-eval")
    ap.add_argument("--venv", type=Path, default=Path("/tmp/mtme-venv"), help="side environment")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    py = args.venv / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(args.venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "numpy", "scipy"], check=True)
    commit = subprocess.run(
        ["git", "--git-dir", str(args.mirror), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        pkg = Path(tmp) / "mt_metrics_eval"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        for name in MODULES:
            text = subprocess.run(
                ["git", "--git-dir", str(args.mirror), "show", f"HEAD:mt_metrics_eval/{name}"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            (pkg / name).write_text(text)
        child = Path(tmp) / "child.py"
        child.write_text(CHILD)
        subprocess.run(
            [str(py), str(child), str(SEED), str(args.out), str(pkg / "data.py")],
            check=True,
            env={"PYTHONPATH": tmp, "PATH": "/usr/bin:/bin"},
        )
    versions = subprocess.run(
        [str(py), "-c", "import numpy, scipy; print(numpy.__version__, scipy.__version__)"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    import json

    data = json.loads(args.out.read_text())
    data["source"] = {
        "repository": "github.com/google-research/mt-metrics-eval",
        "commit": commit,
        "numpy": versions[0],
        "scipy": versions[1],
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out} (mt-metrics-eval {commit[:10]})")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
