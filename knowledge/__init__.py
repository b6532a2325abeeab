"""Knowledge bases and retrievers (FAISS store, BM25, triplet graph, hybrid retrieval).

Filled by the retrieval-based methods (Learn-to-Refuse, Factual Evidence, M-Eval); the
Self-Reflection graph draws its knowledge from the model itself and needs none of this.
"""
