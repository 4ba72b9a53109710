"""HTTP client for the billing service, with retries."""

import time

from billing.errors import TransientError


def retry(times=3, delay=0.5):
    """Retry the wrapped call on TransientError."""
    def wrap(fn):
        def inner(*args, **kwargs):
            for attempt in range(times):
                try:
                    return fn(*args, **kwargs)
                except TransientError:
                    time.sleep(delay * (attempt + 1))
            return fn(*args, **kwargs)
        return inner
    return wrap


class BillingClient:
    """Talks to the billing API."""

    timeout = 10

    def __init__(self, base_url, session):
        self.base_url = base_url
        self.session = session

    @staticmethod
    def invoice_url(base_url, invoice_id):
        """Return the API URL of one invoice."""
        return f"{base_url}/v1/invoices/{invoice_id}"

    @retry(times=5, delay=1.0)
    def fetch_invoice(self, invoice_id):
        """Fetch one invoice as a dict.

        Raises TransientError when the API keeps failing.
        """
        resp = self.session.get(self.invoice_url(self.base_url, invoice_id), timeout=self.timeout)
        resp.raise_for_status()
        return resp.json()
