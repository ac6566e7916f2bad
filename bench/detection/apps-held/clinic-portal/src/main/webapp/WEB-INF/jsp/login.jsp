<%@ page contentType="text/html;charset=UTF-8" %>
<%@ taglib prefix="c" uri="jakarta.tags.core" %>
<html>
<head><title>Patient portal sign-in</title></head>
<body>
<h1>MapleCare patient portal</h1>
<c:if test="${not empty error}">
  <p class="error">${error}</p>
</c:if>
<form method="post" action="login">
  <input type="hidden" name="next" value="${param.next}">
  <label>Username <input type="text" name="username" autocomplete="username"></label>
  <label>PIN <input type="password" name="pin" inputmode="numeric" maxlength="6"></label>
  <button type="submit">Sign in</button>
</form>
<p><a href="help.jsp">Forgot your PIN?</a></p>
</body>
</html>
