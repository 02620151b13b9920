"""The thesis's chapter 3: trial scores and priority functions learned by regression."""
