"""The HTTP edge: JSON API, OpenAPI document, health, errors and middleware."""
