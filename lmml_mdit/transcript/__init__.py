"""The transcript layer: a conversation record edited in code, and its lossless LMML form."""
