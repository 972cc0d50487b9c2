"""Server-rendered web pages (Jinja2 templates, one stylesheet, no JavaScript)."""
