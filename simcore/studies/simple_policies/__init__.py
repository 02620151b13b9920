"""The thesis's chapter 4: simple queue orders against EASY under three objectives."""
