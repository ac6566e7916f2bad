'use strict';

const express = require('express');
const _ = require('lodash');
const crypto = require('crypto');
const { User, Order } = require('../models');
const { sendMail } = require('../mailer');

const router = express.Router();
const PREFERENCE_FIELDS = ['theme', 'language', 'currency', 'newsletter'];

router.post('/preferences', (req, res) => {
  req.session.preferences = _.merge(req.session.preferences || {}, req.body);
  res.json(req.session.preferences);
});

router.post('/preferences/safe', (req, res) => {
  const update = _.pick(req.body, PREFERENCE_FIELDS);
  req.session.preferences = { ...req.session.preferences, ...update };
  res.json(req.session.preferences);
});

router.post('/forgot-password', async (req, res) => {
  const user = await User.findOne({ email: String(req.body.email) });
  if (user) {
    const token = crypto.randomBytes(32).toString('hex');
    await user.update({ resetToken: token, resetExpires: Date.now() + 3600000 });
    const link = `${req.protocol}://${req.get('host')}/reset-password?token=${token}`;
    await sendMail(user.email, 'Reset your password', link);
  }
  res.json({ ok: true });
});

router.post('/verify-email', async (req, res) => {
  const user = await User.findOne({ email: String(req.body.email) });
  if (user) {
    const link = `${process.env.PUBLIC_URL}/verify?token=${user.verifyToken}`;
    await sendMail(user.email, 'Verify your address', link);
  }
  res.json({ ok: true });
});

router.get('/orders/:id', async (req, res) => {
  const order = await Order.findByPk(req.params.id);
  res.json(order);
});

router.get('/my-orders/:id', async (req, res) => {
  const order = await Order.findOne({ where: { id: req.params.id, userId: req.session.userId } });
  if (!order) return res.sendStatus(404);
  res.json(order);
});

router.get('/export', async (req, res) => {
  try {
    const orders = await Order.findAll({ where: { userId: req.session.userId } });
    res.json(orders);
  } catch (err) {
    res.status(500).send(err.stack);
  }
});

module.exports = router;
