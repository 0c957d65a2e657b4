"""The keyword definitions, one module per area of the language; `catalogue` assembles them."""
