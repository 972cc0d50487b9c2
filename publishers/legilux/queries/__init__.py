"""The legilux SPARQL queries (``*.rq``), loaded with :func:`publishers.http.load_query`."""
