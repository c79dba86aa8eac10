"""Meta-evaluation of evaluators as the metrics literature reports it: segment, group and
system level correlations, pairwise accuracies, tests between evaluators and their
significance clusters (docs/metaeval.md).

``grid.build_grid`` turns a project's inputs into systems x groups matrices;
``document.meta_evaluate`` computes the document. Import the submodules themselves: this
package hands nothing on, so the agreement document can read ``rows`` without loading the
statistics.
"""
