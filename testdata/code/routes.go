package api

import "net/http"

// registerRoutes wires every HTTP route of the public API onto mux.
// Routes are grouped by resource; each group has list, get, create,
// update and delete handlers.
func (s *Server) registerRoutes(mux *http.ServeMux) {
	// orders
	mux.HandleFunc("GET /v1/orders", s.listOrders)
	mux.HandleFunc("GET /v1/orders/{id}", s.getOrders)
	mux.HandleFunc("POST /v1/orders", s.createOrders)
	mux.HandleFunc("PATCH /v1/orders/{id}", s.updateOrders)
	mux.HandleFunc("DELETE /v1/orders/{id}", s.deleteOrders)
	// refunds
	mux.HandleFunc("GET /v1/refunds", s.listRefunds)
	mux.HandleFunc("GET /v1/refunds/{id}", s.getRefunds)
	mux.HandleFunc("POST /v1/refunds", s.createRefunds)
	mux.HandleFunc("PATCH /v1/refunds/{id}", s.updateRefunds)
	mux.HandleFunc("DELETE /v1/refunds/{id}", s.deleteRefunds)
	// invoices
	mux.HandleFunc("GET /v1/invoices", s.listInvoices)
	mux.HandleFunc("GET /v1/invoices/{id}", s.getInvoices)
	mux.HandleFunc("POST /v1/invoices", s.createInvoices)
	mux.HandleFunc("PATCH /v1/invoices/{id}", s.updateInvoices)
	mux.HandleFunc("DELETE /v1/invoices/{id}", s.deleteInvoices)
	// customers
	mux.HandleFunc("GET /v1/customers", s.listCustomers)
	mux.HandleFunc("GET /v1/customers/{id}", s.getCustomers)
	mux.HandleFunc("POST /v1/customers", s.createCustomers)
	mux.HandleFunc("PATCH /v1/customers/{id}", s.updateCustomers)
	mux.HandleFunc("DELETE /v1/customers/{id}", s.deleteCustomers)
	// payments
	mux.HandleFunc("GET /v1/payments", s.listPayments)
	mux.HandleFunc("GET /v1/payments/{id}", s.getPayments)
	mux.HandleFunc("POST /v1/payments", s.createPayments)
	mux.HandleFunc("PATCH /v1/payments/{id}", s.updatePayments)
	mux.HandleFunc("DELETE /v1/payments/{id}", s.deletePayments)
	// subscriptions
	mux.HandleFunc("GET /v1/subscriptions", s.listSubscriptions)
	mux.HandleFunc("GET /v1/subscriptions/{id}", s.getSubscriptions)
	mux.HandleFunc("POST /v1/subscriptions", s.createSubscriptions)
	mux.HandleFunc("PATCH /v1/subscriptions/{id}", s.updateSubscriptions)
	mux.HandleFunc("DELETE /v1/subscriptions/{id}", s.deleteSubscriptions)
	// coupons
	mux.HandleFunc("GET /v1/coupons", s.listCoupons)
	mux.HandleFunc("GET /v1/coupons/{id}", s.getCoupons)
	mux.HandleFunc("POST /v1/coupons", s.createCoupons)
	mux.HandleFunc("PATCH /v1/coupons/{id}", s.updateCoupons)
	mux.HandleFunc("DELETE /v1/coupons/{id}", s.deleteCoupons)
	// products
	mux.HandleFunc("GET /v1/products", s.listProducts)
	mux.HandleFunc("GET /v1/products/{id}", s.getProducts)
	mux.HandleFunc("POST /v1/products", s.createProducts)
	mux.HandleFunc("PATCH /v1/products/{id}", s.updateProducts)
	mux.HandleFunc("DELETE /v1/products/{id}", s.deleteProducts)
	// prices
	mux.HandleFunc("GET /v1/prices", s.listPrices)
	mux.HandleFunc("GET /v1/prices/{id}", s.getPrices)
	mux.HandleFunc("POST /v1/prices", s.createPrices)
	mux.HandleFunc("PATCH /v1/prices/{id}", s.updatePrices)
	mux.HandleFunc("DELETE /v1/prices/{id}", s.deletePrices)
	// shipments
	mux.HandleFunc("GET /v1/shipments", s.listShipments)
	mux.HandleFunc("GET /v1/shipments/{id}", s.getShipments)
	mux.HandleFunc("POST /v1/shipments", s.createShipments)
	mux.HandleFunc("PATCH /v1/shipments/{id}", s.updateShipments)
	mux.HandleFunc("DELETE /v1/shipments/{id}", s.deleteShipments)
	// returns
	mux.HandleFunc("GET /v1/returns", s.listReturns)
	mux.HandleFunc("GET /v1/returns/{id}", s.getReturns)
	mux.HandleFunc("POST /v1/returns", s.createReturns)
	mux.HandleFunc("PATCH /v1/returns/{id}", s.updateReturns)
	mux.HandleFunc("DELETE /v1/returns/{id}", s.deleteReturns)
	// webhooks
	mux.HandleFunc("GET /v1/webhooks", s.listWebhooks)
	mux.HandleFunc("GET /v1/webhooks/{id}", s.getWebhooks)
	mux.HandleFunc("POST /v1/webhooks", s.createWebhooks)
	mux.HandleFunc("PATCH /v1/webhooks/{id}", s.updateWebhooks)
	mux.HandleFunc("DELETE /v1/webhooks/{id}", s.deleteWebhooks)
	// reports
	mux.HandleFunc("GET /v1/reports", s.listReports)
	mux.HandleFunc("GET /v1/reports/{id}", s.getReports)
	mux.HandleFunc("POST /v1/reports", s.createReports)
	mux.HandleFunc("PATCH /v1/reports/{id}", s.updateReports)
	mux.HandleFunc("DELETE /v1/reports/{id}", s.deleteReports)
	// accounts
	mux.HandleFunc("GET /v1/accounts", s.listAccounts)
	mux.HandleFunc("GET /v1/accounts/{id}", s.getAccounts)
	mux.HandleFunc("POST /v1/accounts", s.createAccounts)
	mux.HandleFunc("PATCH /v1/accounts/{id}", s.updateAccounts)
	mux.HandleFunc("DELETE /v1/accounts/{id}", s.deleteAccounts)
	// users
	mux.HandleFunc("GET /v1/users", s.listUsers)
	mux.HandleFunc("GET /v1/users/{id}", s.getUsers)
	mux.HandleFunc("POST /v1/users", s.createUsers)
	mux.HandleFunc("PATCH /v1/users/{id}", s.updateUsers)
	mux.HandleFunc("DELETE /v1/users/{id}", s.deleteUsers)
	// sessions
	mux.HandleFunc("GET /v1/sessions", s.listSessions)
	mux.HandleFunc("GET /v1/sessions/{id}", s.getSessions)
	mux.HandleFunc("POST /v1/sessions", s.createSessions)
	mux.HandleFunc("PATCH /v1/sessions/{id}", s.updateSessions)
	mux.HandleFunc("DELETE /v1/sessions/{id}", s.deleteSessions)
	// tokens
	mux.HandleFunc("GET /v1/tokens", s.listTokens)
	mux.HandleFunc("GET /v1/tokens/{id}", s.getTokens)
	mux.HandleFunc("POST /v1/tokens", s.createTokens)
	mux.HandleFunc("PATCH /v1/tokens/{id}", s.updateTokens)
	mux.HandleFunc("DELETE /v1/tokens/{id}", s.deleteTokens)
	// audits
	mux.HandleFunc("GET /v1/audits", s.listAudits)
	mux.HandleFunc("GET /v1/audits/{id}", s.getAudits)
	mux.HandleFunc("POST /v1/audits", s.createAudits)
	mux.HandleFunc("PATCH /v1/audits/{id}", s.updateAudits)
	mux.HandleFunc("DELETE /v1/audits/{id}", s.deleteAudits)
	// disputes
	mux.HandleFunc("GET /v1/disputes", s.listDisputes)
	mux.HandleFunc("GET /v1/disputes/{id}", s.getDisputes)
	mux.HandleFunc("POST /v1/disputes", s.createDisputes)
	mux.HandleFunc("PATCH /v1/disputes/{id}", s.updateDisputes)
	mux.HandleFunc("DELETE /v1/disputes/{id}", s.deleteDisputes)
	// payouts
	mux.HandleFunc("GET /v1/payouts", s.listPayouts)
	mux.HandleFunc("GET /v1/payouts/{id}", s.getPayouts)
	mux.HandleFunc("POST /v1/payouts", s.createPayouts)
	mux.HandleFunc("PATCH /v1/payouts/{id}", s.updatePayouts)
	mux.HandleFunc("DELETE /v1/payouts/{id}", s.deletePayouts)
	// taxes
	mux.HandleFunc("GET /v1/taxes", s.listTaxes)
	mux.HandleFunc("GET /v1/taxes/{id}", s.getTaxes)
	mux.HandleFunc("POST /v1/taxes", s.createTaxes)
	mux.HandleFunc("PATCH /v1/taxes/{id}", s.updateTaxes)
	mux.HandleFunc("DELETE /v1/taxes/{id}", s.deleteTaxes)
	// carts
	mux.HandleFunc("GET /v1/carts", s.listCarts)
	mux.HandleFunc("GET /v1/carts/{id}", s.getCarts)
	mux.HandleFunc("POST /v1/carts", s.createCarts)
	mux.HandleFunc("PATCH /v1/carts/{id}", s.updateCarts)
	mux.HandleFunc("DELETE /v1/carts/{id}", s.deleteCarts)
	// wishlists
	mux.HandleFunc("GET /v1/wishlists", s.listWishlists)
	mux.HandleFunc("GET /v1/wishlists/{id}", s.getWishlists)
	mux.HandleFunc("POST /v1/wishlists", s.createWishlists)
	mux.HandleFunc("PATCH /v1/wishlists/{id}", s.updateWishlists)
	mux.HandleFunc("DELETE /v1/wishlists/{id}", s.deleteWishlists)
	// reviews
	mux.HandleFunc("GET /v1/reviews", s.listReviews)
	mux.HandleFunc("GET /v1/reviews/{id}", s.getReviews)
	mux.HandleFunc("POST /v1/reviews", s.createReviews)
	mux.HandleFunc("PATCH /v1/reviews/{id}", s.updateReviews)
	mux.HandleFunc("DELETE /v1/reviews/{id}", s.deleteReviews)
	// inventory
	mux.HandleFunc("GET /v1/inventory", s.listInventory)
	mux.HandleFunc("GET /v1/inventory/{id}", s.getInventory)
	mux.HandleFunc("POST /v1/inventory", s.createInventory)
	mux.HandleFunc("PATCH /v1/inventory/{id}", s.updateInventory)
	mux.HandleFunc("DELETE /v1/inventory/{id}", s.deleteInventory)
	// warehouses
	mux.HandleFunc("GET /v1/warehouses", s.listWarehouses)
	mux.HandleFunc("GET /v1/warehouses/{id}", s.getWarehouses)
	mux.HandleFunc("POST /v1/warehouses", s.createWarehouses)
	mux.HandleFunc("PATCH /v1/warehouses/{id}", s.updateWarehouses)
	mux.HandleFunc("DELETE /v1/warehouses/{id}", s.deleteWarehouses)
	// suppliers
	mux.HandleFunc("GET /v1/suppliers", s.listSuppliers)
	mux.HandleFunc("GET /v1/suppliers/{id}", s.getSuppliers)
	mux.HandleFunc("POST /v1/suppliers", s.createSuppliers)
	mux.HandleFunc("PATCH /v1/suppliers/{id}", s.updateSuppliers)
	mux.HandleFunc("DELETE /v1/suppliers/{id}", s.deleteSuppliers)
	// discounts
	mux.HandleFunc("GET /v1/discounts", s.listDiscounts)
	mux.HandleFunc("GET /v1/discounts/{id}", s.getDiscounts)
	mux.HandleFunc("POST /v1/discounts", s.createDiscounts)
	mux.HandleFunc("PATCH /v1/discounts/{id}", s.updateDiscounts)
	mux.HandleFunc("DELETE /v1/discounts/{id}", s.deleteDiscounts)
}

// health answers load balancer probes.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}
