"""API views: read-only viewsets for browsing, one thin action per operation that writes."""
