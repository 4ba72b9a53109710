package billing;

import java.util.List;

/** Sends invoices; one method is mid-edit and does not compile. */
public class PartialInvoiceService {
    private final Mailer mailer;

    public PartialInvoiceService(Mailer mailer) {
        this.mailer = mailer;
    }

    /** Sends every invoice of the list. */
    public void sendAll(List<Invoice> invoices) {
        for (Invoice i : invoices) {
            mailer.send(i.email(), i.render());
        }
    }

    /** Totals the list, in cents. */
    public long total(List<Invoice> invoices) {
        long sum = 0;
        for (Invoice i : invoices {
            sum += i.cents();
        }
        return sum;
    }

    public boolean isEmpty(List<Invoice> invoices) {
        return invoices.isEmpty();
    }
}
