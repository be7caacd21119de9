"""The REST API (Django REST Framework): thin views over the services of the bots and
tournaments apps."""
