import { useEffect, useState } from "react";
import { ApiClient, Order } from "../api/client";

const api = new ApiClient("/api");

export function OrderList({ ids }: { ids: string[] }) {
  const [orders, setOrders] = useState<Order[]>([]);
  useEffect(() => {
    Promise.all(ids.map((id) => api.getOrder(id))).then(setOrders);
  }, [ids]);
  return (
    <ul>
      {orders.map((o) => (
        <li key={o.id}>
          {o.id}: {o.status}
          <button onClick={() => api.cancelOrder(o.id)}>Cancel</button>
        </li>
      ))}
    </ul>
  );
}
