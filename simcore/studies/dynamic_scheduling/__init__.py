"""The thesis's section 3.3: learned priority functions against hand-engineered orders."""
