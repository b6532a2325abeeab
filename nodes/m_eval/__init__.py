"""M-Eval's own agents and arithmetic (graphs/m_eval.py is the graph that runs them).

- `reliability`: an article's evidence level, recency bonus and quality penalties;
- `heterogeneity`: DerSimonian–Laird statistics and the weighted claim score M(c);
- `records`: the state's records (articles, stances, claim results, the evidence report)
  and the pure steps that build them from stances;
- `stances`: the four ways to label a (claim, article) pair +1 / 0 / −1.
"""
