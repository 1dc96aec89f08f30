"""masrl: the corpus, tables, figures, claims, audits and orchestration traces of the
survey "Reinforcement Learning for LLM-based Multi-Agent Systems through
Orchestration Traces" (Chenchen Zhang, arXiv 2605.02801), rebuilt from records.
"""

__version__ = "0.1.0"
