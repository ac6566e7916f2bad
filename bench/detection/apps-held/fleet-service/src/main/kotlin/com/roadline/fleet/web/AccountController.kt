package com.roadline.fleet.web

import com.roadline.fleet.model.LoginRequest
import com.roadline.fleet.model.RegisterRequest
import com.roadline.fleet.service.AccountService
import jakarta.servlet.http.Cookie
import jakarta.servlet.http.HttpServletResponse
import org.springframework.http.ResponseEntity
import org.springframework.stereotype.Controller
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.ResponseBody

@Controller
class AccountController(private val accounts: AccountService) {

    private val resetCodes = mutableMapOf<String, String>()

    @PostMapping("/api/register")
    @ResponseBody
    fun register(@RequestBody body: RegisterRequest): ResponseEntity<Void> {
        if (body.password.length < 10) return ResponseEntity.badRequest().build()
        accounts.register(body.email, body.displayName, body.password, body.depot)
        return ResponseEntity.noContent().build()
    }

    @PostMapping("/api/login")
    @ResponseBody
    fun login(@RequestBody body: LoginRequest, response: HttpServletResponse): ResponseEntity<Map<String, String>> {
        val driver = accounts.authenticate(body.email, body.password) ?: return ResponseEntity.status(401).build()
        val token = accounts.issueToken(driver)
        val session = Cookie("fleet_session", accounts.sessionId())
        session.path = "/"
        session.isHttpOnly = true
        session.secure = true
        response.addCookie(session)
        val remember = Cookie("fleet_token", token)
        remember.path = "/"
        remember.maxAge = 30 * 24 * 3600
        response.addCookie(remember)
        return ResponseEntity.ok(mapOf("token" to token, "name" to driver.displayName))
    }

    @PostMapping("/api/password-reset")
    @ResponseBody
    fun requestReset(@RequestParam email: String): ResponseEntity<Void> {
        val code = accounts.resetCode()
        resetCodes[email.lowercase()] = code
        return ResponseEntity.accepted().build()
    }

    @GetMapping("/login/done")
    fun afterLogin(@RequestParam(name = "returnTo", defaultValue = "/") returnTo: String): String =
        "redirect:$returnTo"

    @GetMapping("/logout")
    fun logout(@RequestParam(name = "next", defaultValue = "/") next: String, response: HttpServletResponse): String {
        response.addCookie(Cookie("fleet_session", "").apply { maxAge = 0; path = "/" })
        val target = if (next.startsWith("/") && !next.startsWith("//") && !next.contains("\\")) next else "/"
        return "redirect:$target"
    }
}
