SELECT customer_id, channel, count(*) AS orders, sum(total) AS revenue
FROM orders
GROUP BY customer_id, channel
