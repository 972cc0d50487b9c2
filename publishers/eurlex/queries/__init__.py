"""The eurlex SPARQL queries (``*.rq``), loaded with :func:`publishers.http.load_query`."""
