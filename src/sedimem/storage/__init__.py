"""Storage backends. Stores know nothing of the service layer above them."""
