"""Email notifications to customers."""

import os
import smtplib
from string import Template

TEMPLATES = {
    "order_cancelled": "Hello $name, your order $order was cancelled.",
    "refund_issued": "Hello $name, we refunded $amount to your card.",
}


def render_template(name, **ctx):
    """Build an email body from the named template and the values in ctx."""
    return Template(TEMPLATES[name]).substitute(**ctx)


class EmailNotifier:
    """Sends mail through the SMTP server named by the SMTP_HOST env var."""

    def __init__(self):
        self.host = os.environ.get("SMTP_HOST", "localhost")

    def send(self, to, subject, body):
        """Send one message; raises on SMTP errors."""
        with smtplib.SMTP(self.host) as smtp:
            smtp.sendmail("shop@example.com", [to], f"Subject: {subject}\n\n{body}")
