// HTTP client of the shop API, used by the web app.

export interface Order {
  id: string;
  status: "pending" | "paid" | "shipped" | "cancelled";
}

// fetchWithRetry retries a request on network errors and 5xx answers,
// waiting a little longer before each attempt.
export async function fetchWithRetry(url: string, init: RequestInit = {}, retries = 3): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, init);
      if (res.status < 500 || attempt >= retries) return res;
    } catch (err) {
      if (attempt >= retries) throw err;
    }
    await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
  }
}

export class ApiClient {
  constructor(private baseUrl: string) {}

  // getOrder loads one order by id.
  async getOrder(id: string): Promise<Order> {
    const res = await fetchWithRetry(`${this.baseUrl}/orders/${id}`);
    return res.json();
  }

  // cancelOrder asks the server to cancel an order.
  async cancelOrder(id: string): Promise<void> {
    await fetchWithRetry(`${this.baseUrl}/orders/${id}/cancel`, { method: "POST" });
  }
}
