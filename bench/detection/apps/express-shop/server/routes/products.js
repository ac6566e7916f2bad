'use strict';

const express = require('express');
const { Product, Review, sequelize } = require('../models');

const router = express.Router();

router.get('/search', async (req, res, next) => {
  try {
    const items = await Product.find({ name: req.query.name, visible: true }).limit(50);
    res.json(items);
  } catch (err) {
    next(err);
  }
});

router.get('/by-category', async (req, res, next) => {
  try {
    const items = await Product.find({ category: String(req.query.category) }).limit(50);
    res.json(items);
  } catch (err) {
    next(err);
  }
});

router.post('/filter', async (req, res, next) => {
  try {
    const items = await Product.find(req.body).limit(50);
    res.json(items);
  } catch (err) {
    next(err);
  }
});

router.get('/:id/reviews', async (req, res, next) => {
  try {
    const sort = req.query.sort === 'oldest' ? 'ASC' : 'DESC';
    const [rows] = await sequelize.query(
      `SELECT id, author, rating, body FROM reviews WHERE product_id = ${req.params.id} ORDER BY created_at ${sort}`,
    );
    res.json(rows);
  } catch (err) {
    next(err);
  }
});

router.get('/:id/rating', async (req, res, next) => {
  try {
    const [rows] = await sequelize.query('SELECT AVG(rating) AS avg FROM reviews WHERE product_id = :id', {
      replacements: { id: req.params.id },
    });
    res.json(rows[0]);
  } catch (err) {
    next(err);
  }
});

router.get('/top', async (req, res, next) => {
  try {
    const min = Number.parseInt(req.query.min, 10) || 4;
    const reviews = await Review.findAll({ where: sequelize.literal(`rating >= ${req.query.min}`), limit: 20 });
    res.json({ min, reviews });
  } catch (err) {
    next(err);
  }
});

router.get('/go', (req, res) => {
  const target = req.query.url;
  if (target.includes('example.com')) {
    return res.redirect(target);
  }
  res.redirect('/');
});

router.get('/continue', (req, res) => {
  const next = new URL(String(req.query.next || '/'), 'https://shop.example.com');
  if (next.origin === 'https://shop.example.com') {
    return res.redirect(next.pathname + next.search);
  }
  res.redirect('/');
});

module.exports = router;
