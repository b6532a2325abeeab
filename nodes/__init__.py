"""The agents graphs are made of: input checks, generators, scorers, loop closers.

A node function here takes plain values and a `Models` gateway and returns plain values;
graph modules wrap them into LangGraph nodes. Anything two graphs need lives here.
"""
